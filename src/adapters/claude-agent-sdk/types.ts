/**
 * The Claude Agent SDK's shapes as this adapter reads them, declared structurally so no type of
 * `@anthropic-ai/claude-agent-sdk` reaches hyphae's declarations. Each is the part of the SDK's type
 * the adapter uses: a hook input with every field optional, the outputs it returns, `canUseTool`,
 * and an in-process tool of `createSdkMcpServer`.
 */
import type { GuardPipeline, GuardPipelineOptions } from '../pipeline.js';
import type { GuardRun } from '../shared/run-types.js';

/** A hook's input: any event's, read by the fields the tool events carry. */
export interface ClaudeHookInput {
  readonly hook_event_name: string;
  readonly tool_name?: unknown;
  readonly tool_input?: unknown;
  readonly tool_use_id?: unknown;
  readonly tool_response?: unknown;
  readonly error?: unknown;
  /** `UserPromptSubmit`'s prompt. */
  readonly prompt?: unknown;
}

/** What a hook of this adapter answers: nothing, a `PreToolUse` denial, and/or the end of the query. */
export interface ClaudeHookOutput {
  /** `false` ends the query (Claude Code's `terminal_reason: 'hook_stopped'`). */
  continue?: boolean;
  stopReason?: string;
  hookSpecificOutput?: {
    hookEventName: 'PreToolUse';
    permissionDecision: 'deny';
    /** The reason the model reads in the call's `tool_result`. */
    permissionDecisionReason: string;
  };
}

/** A hook callback as `options.hooks` takes it. */
export type ClaudeHookCallback = (
  input: ClaudeHookInput,
  toolUseID: string | undefined,
  options: { readonly signal: AbortSignal },
) => Promise<ClaudeHookOutput>;

/** One matcher of `options.hooks`: these hooks match every tool. */
export interface ClaudeHookMatcher {
  hooks: ClaudeHookCallback[];
}

/** The hooks to spread into `options.hooks`. */
export interface ClaudeAgentHooks {
  UserPromptSubmit: ClaudeHookMatcher[];
  PreToolUse: ClaudeHookMatcher[];
  PostToolUse: ClaudeHookMatcher[];
  PostToolUseFailure: ClaudeHookMatcher[];
}

/** What `canUseTool` answers. */
export type ClaudePermissionResult =
  | { behavior: 'allow'; updatedInput: Record<string, unknown> }
  | { behavior: 'deny'; message: string; interrupt?: boolean };

/** `options.canUseTool`. */
export type ClaudeCanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  options: { readonly signal: AbortSignal; readonly toolUseID?: string },
) => Promise<ClaudePermissionResult>;

/** A call the guards let through, put to {@link ClaudeAgentGuardOptions.approve}. */
export interface ClaudeApprovalRequest {
  readonly toolName: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly toolUseId: string | undefined;
  readonly signal: AbortSignal;
}

/** A human's (or a policy's) answer: `true` approves; a string refuses with that reason for the model. */
export type ClaudeApproval = boolean | { readonly deny: string };

/** An MCP `CallToolResult`, as an in-process tool returns it. */
export interface ClaudeCallToolResult {
  content: { type: string; [key: string]: unknown }[];
  isError?: boolean | undefined;
  [key: string]: unknown;
}

/** An in-process tool (what the SDK's `tool()` returns): the adapter wraps its `handler`. */
export interface ClaudeSdkToolLike<A = never> {
  readonly name: string;
  handler: (args: A, extra: unknown) => Promise<ClaudeCallToolResult>;
}

/** A message of the query's stream, read for usage (`assistant`, `stream_event`, `result`). */
export interface ClaudeSdkMessageLike {
  readonly type: string;
  /** An `assistant` message's API message (its id, model, content and usage). */
  readonly message?: unknown;
  /** A `stream_event`'s raw stream event (`message_start`, `message_delta`). */
  readonly event?: unknown;
  /** A `result`'s usage totals of the query. */
  readonly usage?: unknown;
}

/** Options of {@link guardClaudeAgent}. */
export interface ClaudeAgentGuardOptions {
  /** The pipeline (or its options) every call of the query goes through. */
  readonly guards: GuardPipeline | GuardPipelineOptions;
  /** The run: the fuse run and the ledger scope of every call of the query. */
  readonly runId: string;
  readonly threadId?: string;
  /**
   * Asked by `canUseTool` for a call the guards let through (only for tools no allow rule covers).
   * Without it, `canUseTool` allows what the guards allow.
   */
  readonly approve?: (request: ClaudeApprovalRequest) => ClaudeApproval | Promise<ClaudeApproval>;
  /**
   * The model the query uses (`options.model`): the budget's pre-flight prices its estimates with
   * it until an answer names the model. Default: the name `claude` (a token ceiling needs no price).
   */
  readonly model?: string;
  /**
   * The output the pre-flight expects of each model request (Claude Code's
   * `CLAUDE_CODE_MAX_OUTPUT_TOKENS`, when set). Default: the pipeline's `defaultMaxOutputTokens`.
   */
  readonly maxOutputTokens?: number;
}

/** The guards of one query. */
export interface ClaudeAgentGuards {
  /**
   * Spread into `options.hooks`: fuses in `PreToolUse`, results booked in `PostToolUse(Failure)`,
   * and the budget's pre-flight of the next model request in each (and in `UserPromptSubmit`).
   */
  readonly hooks: ClaudeAgentHooks;
  /** `options.canUseTool`: the guards' verdict, then {@link ClaudeAgentGuardOptions.approve}. */
  readonly canUseTool: ClaudeCanUseTool;
  /**
   * The in-process tools of server `server`, their bodies run through the pipeline (ledger
   * included). The guards know each by its own name (`charge`), the agent by
   * `mcp__<server>__<tool>`; two tools of one name are refused.
   */
  guardTools<T extends ClaudeSdkToolLike<never>>(server: string, tools: readonly T[]): T[];
  /**
   * Book the usage of the query's messages: each answer's input and output when its first
   * `assistant` message arrives, output as `stream_event` deltas report it, and what the `result`'s
   * totals add. Call it on every message, as it arrives: the pre-flight counts what it booked.
   */
  observe(message: ClaudeSdkMessageLike): void;
  /** The guard run behind the query. */
  readonly run: GuardRun;
}

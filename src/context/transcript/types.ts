/**
 * The message shapes transcripts come in, and the issue and change vocabulary of the checks.
 *
 * The canonical model is the OpenAI Chat Completions request shape. AI SDK `ModelMessage` (ai v5
 * to v7) and Anthropic Messages shapes are declared structurally: neither package is a dependency.
 */

/** The three transcript formats every check understands. */
export type TranscriptFormat = 'openai' | 'ai-sdk' | 'anthropic';

/** A content part: a text part, or any other part carried as-is. */
export interface ContentPart {
  readonly type: string;
  readonly [key: string]: unknown;
}

/** A tool call of an assistant message (canonical model). */
export interface TranscriptToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
  /** Position in `tool_calls`, as OpenAI streaming deltas carry it; 0-based when present. */
  readonly index?: number;
}

/** A system (or OpenAI `developer`) message. */
export interface ChatSystemMessage {
  readonly role: 'system' | 'developer';
  readonly content: string | readonly ContentPart[];
  readonly name?: string;
}

/** A user message. */
export interface ChatUserMessage {
  readonly role: 'user';
  readonly content: string | readonly ContentPart[];
  readonly name?: string;
}

/** An assistant message, with the tool calls it made. */
export interface ChatAssistantMessage {
  readonly role: 'assistant';
  readonly content: string | readonly ContentPart[] | null;
  readonly tool_calls?: readonly TranscriptToolCall[];
  readonly name?: string;
  readonly refusal?: string | null;
}

/** The result of one tool call. */
export interface ChatToolMessage {
  readonly role: 'tool';
  readonly tool_call_id: string;
  readonly content: string | readonly ContentPart[];
}

/** A message of the canonical model (OpenAI Chat Completions). */
export type TranscriptMessage = ChatSystemMessage | ChatUserMessage | ChatAssistantMessage | ChatToolMessage;

/** AI SDK `ToolCallPart`. */
export interface AiSdkToolCallPart {
  readonly type: 'tool-call';
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
  readonly providerOptions?: Readonly<Record<string, unknown>>;
  readonly providerExecuted?: boolean;
}

/** AI SDK `ToolResultOutput`. */
export type AiSdkToolResultOutput =
  | { readonly type: 'text' | 'error-text'; readonly value: string }
  | { readonly type: 'json' | 'error-json'; readonly value: unknown }
  | { readonly type: 'execution-denied'; readonly reason?: string }
  | { readonly type: 'content'; readonly value: readonly ContentPart[] };

/** AI SDK `ToolResultPart`. */
export interface AiSdkToolResultPart {
  readonly type: 'tool-result';
  readonly toolCallId: string;
  readonly toolName: string;
  readonly output: AiSdkToolResultOutput;
  readonly providerOptions?: Readonly<Record<string, unknown>>;
}

/** AI SDK `ModelMessage`. */
export type AiSdkMessage =
  | { readonly role: 'system'; readonly content: string; readonly providerOptions?: Readonly<Record<string, unknown>> }
  | {
      readonly role: 'user';
      readonly content: string | readonly ContentPart[];
      readonly providerOptions?: Readonly<Record<string, unknown>>;
    }
  | {
      readonly role: 'assistant';
      readonly content: string | readonly (AiSdkToolCallPart | ContentPart)[];
      readonly providerOptions?: Readonly<Record<string, unknown>>;
    }
  | {
      readonly role: 'tool';
      readonly content: readonly (AiSdkToolResultPart | ContentPart)[];
      readonly providerOptions?: Readonly<Record<string, unknown>>;
    };

/** Anthropic `tool_use` content block (assistant). */
export interface AnthropicToolUseBlock {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

/** Anthropic `tool_result` content block (user). */
export interface AnthropicToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content?: string | readonly ContentPart[];
  readonly is_error?: boolean;
}

/** An Anthropic Messages API message (the system prompt is a separate request field). */
export interface AnthropicMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string | readonly (AnthropicToolUseBlock | AnthropicToolResultBlock | ContentPart)[];
}

/** Stable codes of transcript issues. */
export const TranscriptIssueCode = {
  invalidRole: 'invalid_role',
  missingToolCallId: 'missing_tool_call_id',
  duplicateToolCallIds: 'duplicate_tool_call_ids',
  mixedToolCallIdFamilies: 'mixed_tool_call_id_families',
  nonzeroToolCallIndex: 'nonzero_tool_call_index',
  orphanedToolResult: 'orphaned_tool_result',
  misplacedToolResult: 'misplaced_tool_result',
  unansweredToolCall: 'unanswered_tool_call',
  parsedArtifact: 'parsed_artifact',
} as const;

/** A transcript issue code. */
export type TranscriptIssueCode = (typeof TranscriptIssueCode)[keyof typeof TranscriptIssueCode];

/** One finding of {@link validateTranscript}; `index` is the message's index in the input. */
export interface TranscriptIssue {
  readonly code: TranscriptIssueCode;
  readonly index: number;
  readonly message: string;
  readonly toolCallId?: string;
}

/** What {@link validateTranscript} returns. */
export interface TranscriptValidation {
  readonly ok: boolean;
  readonly format: TranscriptFormat;
  readonly issues: readonly TranscriptIssue[];
}

/** Kinds of change {@link repairTranscript} reports. */
export const TranscriptChangeKind = {
  droppedInvalidMessage: 'dropped_invalid_message',
  assignedToolCallId: 'assigned_tool_call_id',
  droppedDuplicateToolCall: 'dropped_duplicate_tool_call',
  renamedToolCallId: 'renamed_tool_call_id',
  reindexedToolCall: 'reindexed_tool_call',
  droppedOrphanedToolResult: 'dropped_orphaned_tool_result',
  movedToolResult: 'moved_tool_result',
  droppedDuplicateToolResult: 'dropped_duplicate_tool_result',
  droppedUnansweredToolCall: 'dropped_unanswered_tool_call',
  synthesizedToolResult: 'synthesized_tool_result',
  strippedArtifact: 'stripped_artifact',
  droppedEmptyMessage: 'dropped_empty_message',
} as const;

/** A transcript change kind. */
export type TranscriptChangeKind = (typeof TranscriptChangeKind)[keyof typeof TranscriptChangeKind];

/** One change {@link repairTranscript} made; `index` is the affected message's index in the input. */
export interface TranscriptChange {
  readonly kind: TranscriptChangeKind;
  readonly index: number;
  readonly message: string;
  readonly toolCallId?: string;
}

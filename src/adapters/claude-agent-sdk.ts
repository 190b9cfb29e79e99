/**
 * `hyphae/claude-agent-sdk`: the guard pipeline for `@anthropic-ai/claude-agent-sdk` — hooks that
 * decide every tool call in `PreToolUse` and end a stopped query, a `canUseTool` that asks the
 * guards and then an approver, and in-process tools whose bodies run through the ledger.
 *
 * @module
 */
export { guardClaudeAgent } from './claude-agent-sdk/guard-claude-agent.js';
export type {
  ClaudeAgentGuardOptions,
  ClaudeAgentGuards,
  ClaudeAgentHooks,
  ClaudeApproval,
  ClaudeApprovalRequest,
  ClaudeCallToolResult,
  ClaudeCanUseTool,
  ClaudeHookCallback,
  ClaudeHookInput,
  ClaudeHookMatcher,
  ClaudeHookOutput,
  ClaudePermissionResult,
  ClaudeSdkMessageLike,
  ClaudeSdkToolLike,
} from './claude-agent-sdk/types.js';
export * from './shared/pipeline-api.js';

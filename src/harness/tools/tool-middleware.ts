/**
 * Tool middleware: decide on a call before it runs (allow, reject, defer), observe it after.
 */
import type { ToolContext, ToolOutcome } from './agent-tool.js';

/** A validated call, as middleware sees it. */
export interface ToolCallInfo {
  readonly callId: string;
  readonly tool: string;
  /** The input, already valid against the tool's schema. */
  readonly input: unknown;
}

/** What middleware decides about a call; `undefined` means allow. */
export type ToolMiddlewareDecision =
  | { readonly action: 'allow' }
  | { readonly action: 'reject'; readonly message: string }
  | { readonly action: 'defer'; readonly message: string };

/**
 * Middleware around every tool call. `before` runs in order after the input validated and before
 * anything is charged; the first `reject` or `defer` wins and the call does not run. `after` sees
 * every outcome, whatever its status.
 *
 * @example
 * const approvals: ToolMiddleware = {
 *   name: 'approvals',
 *   before: (call) => (call.tool === 'publish' ? { action: 'defer', message: 'Publishing needs approval' } : undefined),
 * };
 */
export interface ToolMiddleware {
  readonly name: string;
  before?(
    call: ToolCallInfo,
    context: ToolContext,
  ): ToolMiddlewareDecision | undefined | Promise<ToolMiddlewareDecision | undefined>;
  after?(outcome: ToolOutcome, context: ToolContext): void | Promise<void>;
}

/**
 * Tool results the guards answer with. A refusal is a tool result with `isError: true` that says
 * the call did NOT happen — never a protocol error, which a client may retry blindly.
 */
import type { ToolCallOutcome } from '../shared/types.js';
import type { JsonRpcErrorObject, McpCallToolResult } from './types.js';

/** The `_meta` key that carries why the guards refused a call: `{ code, stage }`. */
export const REFUSAL_META = 'io.hyphae/refusal';
/** The `_meta` key set on a result the ledger returned for a retried call. */
export const REPLAY_META = 'io.hyphae/replayed';

/** A JSON-RPC error the upstream server answered a `tools/call` with; passed on unchanged. */
export class McpUpstreamError extends Error {
  override readonly name = 'McpUpstreamError';
  readonly rpcError: JsonRpcErrorObject;

  constructor(rpcError: JsonRpcErrorObject) {
    super(`The server answered with error ${rpcError.code}: ${rpcError.message}`);
    this.rpcError = rpcError;
  }
}

/** A refusal as a tool result. */
export function refusalResult(message: string, code: string, stage: string): McpCallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true, _meta: { [REFUSAL_META]: { code, stage } } };
}

/** What a pipeline outcome answers the client: a tool result, or the upstream's own error. */
export function answerOf(
  outcome: ToolCallOutcome,
): { readonly result: McpCallToolResult } | { readonly error: JsonRpcErrorObject } {
  if (outcome.status === 'ok') {
    const result = outcome.result as McpCallToolResult;
    if (outcome.source !== 'ledger') return { result };
    return { result: { ...result, _meta: { ...result._meta, [REPLAY_META]: true } } };
  }
  if (outcome.status === 'refused') return { result: refusalResult(outcome.message, outcome.code, outcome.stage) };
  if (outcome.error instanceof McpUpstreamError) return { error: outcome.error.rpcError };
  return { result: { content: [{ type: 'text', text: outcome.message }], isError: true } };
}

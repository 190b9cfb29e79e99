/**
 * The identity a tool call brings: each id it gives is a non-empty string, and a consequential call
 * without any id is said once through the logger, or refused.
 */
import { GuardError, InvalidOptionError } from '../errors.js';
import { isConsequential } from '../records/envelope.js';
import type { ResolvedSpec, RunContext } from './prepare-call.js';
import type { CallOptions, LedgerLogger } from './types.js';

/**
 * Whether a consequential tool call may go without an explicit identity (a tool call id, a request
 * id, or the dispatch id of `ledger.run`): `allow_derived` keys it by its arguments and says so
 * once through the logger; `require_explicit` refuses it.
 */
export type RequestIdentityPolicy = 'allow_derived' | 'require_explicit';

function checkId(
  spec: ResolvedSpec,
  option: 'toolCallId' | 'requestId' | 'externalOperationRef',
  value: unknown,
): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value !== '') return value;
  const got = value === '' ? 'an empty string' : `\`${String(value)}\` (${value === null ? 'null' : typeof value})`;
  throw new GuardError(
    'invalid_call_id',
    `\`${option}\` of a call to \`${spec.name}\` must be a non-empty string, got ${got}; the tool was not run`,
    { llmMessage: `The call to \`${spec.name}\` was NOT executed: its call id is not a non-empty string.` },
  );
}

/**
 * Check the call's ids: each given one is a non-empty string; a consequential tool with `identity:
 * 'call'` and no id at all is refused under `require_explicit`.
 *
 * @returns true when such a call goes on without an id (keyed by its arguments alone).
 */
export function checkCallIdentity(
  spec: ResolvedSpec,
  options: CallOptions,
  context: RunContext | undefined,
  policy: RequestIdentityPolicy,
): boolean {
  const toolCallId = checkId(spec, 'toolCallId', options.toolCallId);
  const requestId = checkId(spec, 'requestId', options.requestId);
  checkId(spec, 'externalOperationRef', options.externalOperationRef);
  if (spec.kind !== 'tool' || spec.identity !== 'call' || !isConsequential(spec.sideEffectClass)) return false;
  if (toolCallId !== undefined || requestId !== undefined || context?.dispatchId !== undefined) return false;
  if (policy === 'require_explicit') {
    throw new GuardError(
      'missing_call_id',
      `Tool \`${spec.name}\` (\`${spec.sideEffectClass}\`) was called without a \`toolCallId\` or \`requestId\`, which \`requestIdentity: 'require_explicit'\` requires; the tool was not run`,
      { llmMessage: `The call to \`${spec.name}\` was NOT executed: it needs a call id.` },
    );
  }
  return true;
}

/** The check a ledger runs on every call before it prepares the call's identity. */
export function createCallIdentityCheck(
  policy: RequestIdentityPolicy | undefined,
  logger: LedgerLogger | undefined,
): (spec: ResolvedSpec, options: CallOptions, context: RunContext | undefined) => void {
  const resolved = policy ?? 'allow_derived';
  if (resolved !== 'allow_derived' && resolved !== 'require_explicit') {
    throw new InvalidOptionError(
      'requestIdentity',
      `\`requestIdentity\` must be \`allow_derived\` or \`require_explicit\`, got \`${String(resolved)}\``,
    );
  }
  const warned = new Set<string>();
  return function checkCall(spec, options, context) {
    if (!checkCallIdentity(spec, options, context, resolved) || warned.has(spec.name)) return;
    warned.add(spec.name);
    logger?.warn?.(
      `Tool \`${spec.name}\` (\`${spec.sideEffectClass}\`) was called without a \`toolCallId\` or \`requestId\`: its calls are told apart by their arguments alone, so two calls with equal arguments in one scope are one transition. Pass the framework's tool call id, or set \`requestIdentity: 'require_explicit'\` to refuse such calls`,
      { tool: spec.name, sideEffectClass: spec.sideEffectClass },
    );
  };
}

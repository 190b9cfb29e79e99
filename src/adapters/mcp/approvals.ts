/**
 * Human approval of a tool marked `approval: required`. A client that supports elicitation asks its
 * user (`elicitation/create`); otherwise the call is held as a BLOCKED transition (tool
 * `mcp.approval`) that an operator resolves with `hyphae transitions release`: `--not-executed`
 * approves it (the next call with the same intent runs), `--completed --result …` answers it
 * without running it. The held call is one of the ledger's held-call records (`ledger.records`). The model is told the call is waiting, and that it did NOT happen.
 *
 * An approval is spent by the call it let through: the held record keeps that call's ticket (its
 * generation: see `call-identity.ts`), so a retry of the approved call passes again (and the ledger
 * answers it with its stored result), while a new identical call, once the approved one's answer
 * was delivered, is held as the next generation and needs an approval of its own.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { sha256Hex } from '../../core/fingerprint.js';
import { recordArgument, stringArgument } from '../../invalid-argument.js';
import type { GuardRecords } from '../../ledger/guard-records.js';
import type { LedgerScope } from '../../records/transition-record.js';
import { refusalResult } from './tool-results.js';
import type { McpCallToolResult } from './types.js';

/** The tool name of held approvals. */
export const APPROVAL_TOOL = 'mcp.approval';

/** Ask the client's user; resolves with the elicitation result (`{ action, content }`). */
export type McpElicit = (params: Readonly<Record<string, unknown>>) => Promise<unknown>;

/** What the approval step decided. */
export type ApprovalDecision =
  | { readonly status: 'approved' }
  | { readonly status: 'answered'; readonly result: McpCallToolResult };

/** What an approval needs. */
export interface ApprovalContext {
  /** The ledger's records, where a call waits for an operator; none: only the client can approve. */
  readonly records: GuardRecords | undefined;
  readonly scope: LedgerScope;
}

/** The key of the held approval of a call: its scope and intent ticket. */
export function approvalKey(scope: LedgerScope, ticket: string): string {
  recordArgument('approvalKey', 'scope', scope, ['threadId', 'runId']);
  stringArgument('approvalKey', 'ticket', ticket);
  return `mcp.approval:${sha256Hex(canonicalJson([scope.threadId ?? null, scope.runId ?? null, ticket]))}`;
}

/** The most generations of one intent an approval walk reads; past it, a call is held unanswered. */
const MAX_APPROVAL_GENERATIONS = 1000;

/** The key of generation `n` of an intent's approval (generation 0 keeps the key it always had). */
function generationKey(scope: LedgerScope, intent: string, n: number): string {
  return approvalKey(scope, n === 0 ? intent : `${intent}#${n}`);
}

function refused(message: string, code: string): ApprovalDecision {
  return { status: 'answered', result: refusalResult(message, code, 'approval') };
}

async function askUser(elicit: McpElicit, name: string, args: unknown): Promise<ApprovalDecision> {
  let answer: unknown;
  try {
    answer = await elicit({
      message: `Allow the call to \`${name}\` with ${canonicalJson(args ?? null)}?`,
      requestedSchema: {
        type: 'object',
        properties: { approve: { type: 'boolean', title: 'Approve', description: `Run \`${name}\` now` } },
        required: ['approve'],
      },
    });
  } catch {
    return refused(
      `The call to \`${name}\` was NOT executed: it needs the user's approval, and asking failed`,
      'approval_failed',
    );
  }
  const { action, content } = (answer ?? {}) as { action?: unknown; content?: { approve?: unknown } };
  if (action === 'accept' && content?.approve === true) return { status: 'approved' };
  return refused(
    `The call to \`${name}\` was NOT executed: the user did not approve it. Do not retry it unless the user asks`,
    'approval_declined',
  );
}

/** Decide on a call that needs approval: ask the user, or hold it for an operator. */
export async function decideApproval(
  ctx: ApprovalContext,
  call: {
    readonly name: string;
    readonly args: unknown;
    /** The call's intent: its arguments, or the idempotency key its client sent. */
    readonly ticket: string;
    /** The call's own ticket (its generation of the intent); the intent when absent. */
    readonly callTicket?: string | undefined;
    readonly elicit?: McpElicit | undefined;
  },
): Promise<ApprovalDecision> {
  if (call.elicit !== undefined) return askUser(call.elicit, call.name, call.args);
  if (ctx.records === undefined) {
    return refused(
      `The call to \`${call.name}\` was NOT executed: it needs approval, and neither the client nor a ledger can hold it`,
      'approval_unavailable',
    );
  }
  const records = ctx.records;
  for (let n = 0; n < MAX_APPROVAL_GENERATIONS; n++) {
    const key = generationKey(ctx.scope, call.ticket, n);
    const record = await records.hold({
      key,
      tool: APPROVAL_TOOL,
      scope: ctx.scope,
      ticket: call.ticket,
      code: 'approval_pending',
      message: `The call to \`${call.name}\` waits for approval`,
    });
    if (record.operatorResolution?.verified === 'completed') {
      if (record.result !== undefined)
        return { status: 'answered', result: record.result as unknown as McpCallToolResult };
      return pending(call.name, key);
    }
    const spent = await records.spend(record, call.callTicket ?? call.ticket);
    if (spent === 'unreleased') return pending(call.name, key);
    if (spent === 'mine') return { status: 'approved' };
    if (spent === 'lost') n -= 1;
    // Spent by another call: this one is the next generation's.
  }
  return pending(call.name, generationKey(ctx.scope, call.ticket, MAX_APPROVAL_GENERATIONS));
}

function pending(name: string, key: string): ApprovalDecision {
  return refused(
    `The call to \`${name}\` was NOT executed: it is waiting for an operator's approval (transition \`${key}\`). Tell the user; call it again with the same arguments once it is approved`,
    'approval_pending',
  );
}

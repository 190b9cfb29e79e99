/**
 * The steps of one guarded call, for an `onCallEvent` observer: started, each gate decision (a
 * poll is one per wake-up), the claim this call took, lease renewals, a fence that stopped it, the
 * outcome it recorded, and how the call settled. A ledger without the observer makes no trace, so
 * the claim path pays one `undefined` check per step.
 */
import type { Clock } from '../core/clock.js';
import type { TransitionRecord } from '../records/transition-record.js';
import type { PreparedCall } from './prepare-call.js';
import type { GateDecision } from './resolve-gate.js';
import { toRecordedError } from './stored-result.js';
import type { LedgerCallEvent, LedgerCallInfo, LedgerLogger } from './types.js';

/** How this call came to hold the claim. */
export type ClaimVia = 'fresh' | 'takeover' | 'release' | 'reconciled';

function looksLikeRecord(value: unknown, key: string): value is TransitionRecord {
  return typeof value === 'object' && value !== null && (value as { key?: unknown }).key === key;
}

/** One call's trace: emits its steps and keeps the last record it saw. */
export class CallTrace {
  readonly call: LedgerCallInfo;
  readonly #hook: (event: LedgerCallEvent) => void;
  readonly #clock: Clock;
  readonly #logger: LedgerLogger | undefined;
  #last: TransitionRecord | null = null;

  constructor(
    hook: (event: LedgerCallEvent) => void,
    clock: Clock,
    logger: LedgerLogger | undefined,
    call: LedgerCallInfo,
  ) {
    this.#hook = hook;
    this.#clock = clock;
    this.#logger = logger;
    this.call = call;
    this.#emit({ type: 'call_started', call, at: clock.now() });
  }

  /** A throwing observer is reported and ignored: it never changes the call. */
  #emit(event: LedgerCallEvent): void {
    try {
      this.#hook(event);
    } catch (error) {
      this.#logger?.warn?.('The onCallEvent hook threw', { type: event.type, error: toRecordedError(error) });
    }
  }

  claimed(record: TransitionRecord, via: ClaimVia): void {
    this.#last = record;
    this.#emit({ type: 'claimed', call: this.call, record, via, at: this.#clock.now() });
  }

  gate(record: TransitionRecord, decision: GateDecision): void {
    this.#last = record;
    const { gate, reason } = decision;
    this.#emit({ type: 'gate', call: this.call, record, gate, reason, at: this.#clock.now() });
  }

  leaseRenewed(record: TransitionRecord): void {
    this.#last = record;
    this.#emit({ type: 'lease_renewed', call: this.call, record, at: this.#clock.now() });
  }

  fenced(record: TransitionRecord): void {
    this.#emit({ type: 'fenced', call: this.call, record, at: this.#clock.now() });
  }

  recorded(record: TransitionRecord): void {
    this.#last = record;
    this.#emit({ type: 'recorded', call: this.call, record, at: this.#clock.now() });
  }

  settled(ok: true): void;
  settled(ok: false, error: unknown): void;
  settled(ok: boolean, error?: unknown): void {
    const carried = (error as { record?: unknown } | undefined)?.record;
    const record = looksLikeRecord(carried, this.call.key) ? carried : this.#last;
    const at = this.#clock.now();
    this.#emit(
      ok
        ? { type: 'call_settled', call: this.call, ok: true, record, at }
        : { type: 'call_settled', call: this.call, ok: false, record, error, at },
    );
  }
}

/** Start the trace of `call`, or undefined when nobody observes calls. */
export function startTrace(
  hook: ((event: LedgerCallEvent) => void) | undefined,
  clock: Clock,
  logger: LedgerLogger | undefined,
  id: number,
  call: PreparedCall,
): CallTrace | undefined {
  if (hook === undefined) return undefined;
  return new CallTrace(hook, clock, logger, {
    id,
    key: call.key,
    tool: call.spec.name,
    kind: call.spec.kind,
    sideEffectClass: call.spec.sideEffectClass,
    ticket: call.ticket,
  });
}

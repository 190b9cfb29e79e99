/**
 * The history checker: judges exactly-once from what callers saw and what the provider did.
 *
 * Invariants, per transition:
 * - at most one effect (`duplicate_effect`), unless the transition is declared multi-use;
 * - every caller's result equals the transition's one effect result (`result_mismatch`), and a
 *   result with no effect behind it is an anomaly (`result_without_effect`);
 * - every failure is a typed refusal (a `GuardError` code) or an error the tool itself raises
 *   (`untyped_error`);
 * - once a caller got the result, no later caller is refused (`lost_result`);
 * - every call settles unless its process was killed (`unfinished`);
 * - the final record, when given, is in a state the design allows for what happened
 *   (`record_state`).
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { arrayArgument, checkOptions } from '../../invalid-argument.js';
import { Outcome } from '../../records/envelope.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import type { HistoryEvent } from './history.js';

/** The invariants a history can break. */
export const AnomalyKind = {
  duplicateEffect: 'duplicate_effect',
  resultMismatch: 'result_mismatch',
  resultWithoutEffect: 'result_without_effect',
  untypedError: 'untyped_error',
  lostResult: 'lost_result',
  unfinished: 'unfinished',
  recordState: 'record_state',
} as const;
/** One invariant a history can break. */
export type AnomalyKind = (typeof AnomalyKind)[keyof typeof AnomalyKind];

/** A broken invariant, with the sub-history (every event of its transition) that shows it. */
export interface HistoryAnomaly {
  readonly kind: AnomalyKind;
  readonly transition: string;
  readonly message: string;
  readonly events: readonly HistoryEvent[];
}

/** Options of {@link checkHistory}. */
export interface CheckHistoryOptions {
  /** Processes killed during the run: their unsettled calls are expected. */
  readonly crashed?: readonly string[];
  /** Names of errors the tool itself raises, accepted beside typed refusals. */
  readonly toolErrors?: readonly string[];
  /** Codes that say the store could not be reached; such a failure never counts as a lost result. */
  readonly unavailableCodes?: readonly string[];
  /**
   * Transitions whose completing write the ledger reported lost (through its logger): their caller
   * had the result, the store never did, so a later refusal is the documented fail-closed outcome.
   */
  readonly completionLost?: readonly string[];
  /** Transitions of a multi-use class, which may run more than once by design. */
  readonly multiUse?: readonly string[];
  /** Final records by transition name, checked against what happened. */
  readonly records?: Readonly<Record<string, TransitionRecord | null>>;
}

/** What {@link checkHistory} found. */
export interface HistoryCheck {
  readonly ok: boolean;
  readonly anomalies: readonly HistoryAnomaly[];
  readonly stats: {
    readonly operations: number;
    readonly transitions: number;
    readonly effects: number;
    readonly results: number;
    readonly refusals: number;
    readonly unsettled: number;
  };
}

type Invoke = Extract<HistoryEvent, { type: 'invoke' }>;
type Settled = Extract<HistoryEvent, { type: 'ok' | 'fail' }>;
type Effect = Extract<HistoryEvent, { type: 'effect' }>;

interface Call {
  readonly invoke: Invoke;
  readonly settled: Settled | null;
}

interface TransitionHistory {
  readonly calls: Call[];
  readonly effects: Effect[];
  readonly events: HistoryEvent[];
}

const DEFAULT_UNAVAILABLE = ['ledger_storage_unavailable'];

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return canonicalJson(a ?? null) === canonicalJson(b ?? null);
  } catch {
    return false;
  }
}

function show(value: unknown): string {
  try {
    return canonicalJson(value ?? null);
  } catch {
    return String(value);
  }
}

function group(events: readonly HistoryEvent[]): Map<string, TransitionHistory> {
  const byTransition = new Map<string, TransitionHistory>();
  const of = (transition: string): TransitionHistory => {
    let entry = byTransition.get(transition);
    if (entry === undefined) {
      entry = { calls: [], effects: [], events: [] };
      byTransition.set(transition, entry);
    }
    return entry;
  };
  const settledBy = new Map<string, Settled>();
  for (const event of events) if (event.type === 'ok' || event.type === 'fail') settledBy.set(event.op, event);
  const transitionOf = new Map<string, string>();
  for (const event of events) {
    if (event.type === 'invoke') {
      transitionOf.set(event.op, event.transition);
      const entry = of(event.transition);
      entry.calls.push({ invoke: event, settled: settledBy.get(event.op) ?? null });
      entry.events.push(event);
    } else if (event.type === 'effect') {
      const entry = of(event.transition);
      entry.effects.push(event);
      entry.events.push(event);
    } else {
      const transition = transitionOf.get(event.op);
      if (transition !== undefined) of(transition).events.push(event);
    }
  }
  for (const entry of byTransition.values()) entry.events.sort((a, b) => a.at - b.at);
  return byTransition;
}

function checkCalls(
  transition: string,
  entry: TransitionHistory,
  options: CheckHistoryOptions,
  report: (kind: AnomalyKind, message: string) => void,
): void {
  const crashed = new Set(options.crashed ?? []);
  const toolErrors = new Set(options.toolErrors ?? []);
  const unavailable = new Set(options.unavailableCodes ?? DEFAULT_UNAVAILABLE);
  const effect = entry.effects[0];
  let firstResultAt = Number.POSITIVE_INFINITY;
  for (const { settled } of entry.calls)
    if (settled?.type === 'ok') firstResultAt = Math.min(firstResultAt, settled.at);

  for (const { invoke, settled } of entry.calls) {
    if (settled === null) {
      if (!crashed.has(invoke.process)) report('unfinished', `Call \`${invoke.op}\` never settled`);
      continue;
    }
    if (settled.type === 'ok') {
      if (effect === undefined) report('result_without_effect', `Call \`${invoke.op}\` got a result but no effect ran`);
      else if (!options.multiUse?.includes(transition) && !sameJson(settled.result, effect.result))
        report(
          'result_mismatch',
          `Call \`${invoke.op}\` got ${show(settled.result)}, the effect's result is ${show(effect.result)}`,
        );
      continue;
    }
    const { error } = settled;
    if (error.code === null && !toolErrors.has(error.name))
      report('untyped_error', `Call \`${invoke.op}\` failed with an untyped \`${error.name}\`: ${error.message}`);
    const excused =
      (error.code !== null && unavailable.has(error.code)) || options.completionLost?.includes(transition);
    if (invoke.at > firstResultAt && !excused)
      report(
        'lost_result',
        `Call \`${invoke.op}\` started after a caller got the result, yet failed with \`${error.code ?? error.name}\``,
      );
  }
}

function checkRecord(
  record: TransitionRecord | null,
  entry: TransitionHistory,
  report: (kind: AnomalyKind, message: string) => void,
): void {
  const effect = entry.effects[0];
  if (record === null) {
    if (entry.effects.length > 0 || entry.calls.some((call) => call.settled?.type === 'ok'))
      report('record_state', 'The transition ran, yet the store holds no record of it');
    return;
  }
  if (!Object.values(Outcome).includes(record.outcome)) {
    report('record_state', `The record's outcome \`${String(record.outcome)}\` is not one the design knows`);
    return;
  }
  if (effect !== undefined && record.outcome === 'FAILED_BEFORE_EFFECT')
    report('record_state', 'The effect happened, yet the record says it failed before its effect');
  if (record.outcome === 'COMPLETED') {
    if (effect === undefined) report('record_state', 'The record is COMPLETED, yet no effect ran');
    else if (!sameJson(record.result, effect.result))
      report('record_state', `The record stores ${show(record.result)}, the effect's result is ${show(effect.result)}`);
  }
}

/**
 * Check a history (from {@link createHistoryRecorder}, or {@link parseHistory} across processes)
 * against the ledger's exactly-once invariants.
 *
 * @example
 * const check = checkHistory(parseHistory(files.map((f) => readFileSync(f, 'utf8'))), {
 *   crashed: ['worker-2'],
 * });
 * if (!check.ok) console.error(formatAnomalies(check.anomalies));
 */
export function checkHistory(events: readonly HistoryEvent[], options: CheckHistoryOptions = {}): HistoryCheck {
  arrayArgument('checkHistory', 'events', events);
  checkOptions('checkHistory', options);
  const byTransition = group(events);
  const anomalies: HistoryAnomaly[] = [];
  let results = 0;
  let refusals = 0;
  let unsettled = 0;
  let effects = 0;
  let operations = 0;
  for (const [transition, entry] of byTransition) {
    const report = (kind: AnomalyKind, message: string): void => {
      anomalies.push({ kind, transition, message, events: entry.events });
    };
    effects += entry.effects.length;
    operations += entry.calls.length;
    for (const { settled } of entry.calls) {
      if (settled === null) unsettled += 1;
      else if (settled.type === 'ok') results += 1;
      else refusals += 1;
    }
    if (entry.effects.length > 1 && !options.multiUse?.includes(transition))
      report('duplicate_effect', `${entry.effects.length} effects ran for one transition`);
    checkCalls(transition, entry, options, report);
    if (options.records !== undefined && transition in options.records)
      checkRecord(options.records[transition] ?? null, entry, report);
  }
  return {
    ok: anomalies.length === 0,
    anomalies,
    stats: { operations, transitions: byTransition.size, effects, results, refusals, unsettled },
  };
}

function describeEvent(event: HistoryEvent): string {
  switch (event.type) {
    case 'invoke':
      return `${event.op} invoke (${event.process}/${event.caller})`;
    case 'ok':
      return `${event.op} ok ${show(event.result)}`;
    case 'fail':
      return `${event.op} fail ${event.error.code ?? event.error.name}`;
    default:
      return `effect in ${event.process}: ${show(event.result)}`;
  }
}

/** A readable report of anomalies, each followed by its sub-history. */
export function formatAnomalies(anomalies: readonly HistoryAnomaly[]): string {
  arrayArgument('formatAnomalies', 'anomalies', anomalies);
  const start = Math.min(...anomalies.flatMap((a) => a.events.map((e) => e.at)));
  return anomalies
    .map((anomaly) => {
      const lines = anomaly.events.map((event) => `  +${(event.at - start).toFixed(3)}ms ${describeEvent(event)}`);
      return [`${anomaly.kind} in \`${anomaly.transition}\`: ${anomaly.message}`, ...lines].join('\n');
    })
    .join('\n\n');
}

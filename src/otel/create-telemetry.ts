/**
 * OpenTelemetry for guarded calls, attached through the hooks hyphae already has: the ledger's
 * `onEvent` and `onCallEvent`, the fuse box's `onEvent`, and `loadConfig`'s `onEvent` (which carries
 * them all).
 *
 * - A whole guarded call — from its start through its gate decisions, polls, claim, lease renewals
 *   and fence, to how it settled — is one span: the active span (the framework's own tool span)
 *   when there is one, enriched; otherwise a span of its own, `execute_tool {tool}`. Each step is a
 *   span event, and the final record's attributes go on the span.
 * - A release or a worker marked dead (no call of its own) enriches the active span, or gets a
 *   short span of its own. Given only `onEvent` (no call hook), an outcome does the same, from the
 *   record's first attempt to its outcome.
 * - Each fuse verdict is an event `gen_ai.guardrail.result` on the active span.
 * - Metrics: verdicts by fuse and result, transitions by outcome, tool duration, hard blocks.
 *
 * Nothing is installed globally. When no hook is given these functions, nothing is paid.
 */
import type { ConfigEvent } from '../config/load-config.js';
import type { FuseEvent } from '../fuses/events.js';
import { checkOptions } from '../invalid-argument.js';
import type { LedgerCallEvent, LedgerEvent } from '../ledger/types.js';
import type { TransitionRecord } from '../records/transition-record.js';
import type { OtelApi, OtelAttributes, OtelMeter, OtelSpan, OtelTracer } from './otel-types.js';

/** Options of {@link createTelemetry}: a tracer and a meter, or the global API to take them from. */
export interface TelemetryOptions {
  /** The global API; its tracer and meter (named `hyphae`) and its active span are used. */
  readonly api?: OtelApi;
  readonly tracer?: OtelTracer;
  readonly meter?: OtelMeter;
  /** The span to enrich, when not the API's active span. */
  readonly activeSpan?: () => OtelSpan | undefined;
  /** Put the stored result of a completed transition on its span (`gen_ai.tool.call.result`). Default false. */
  readonly recordResults?: boolean;
}

/** The hooks to pass to `createLedger`, `createFuseBox` or `loadConfig` as `onEvent`. */
export interface Telemetry {
  readonly onLedgerEvent: (event: LedgerEvent) => void;
  /** The ledger's `onCallEvent`: one span per guarded call. */
  readonly onCallEvent: (event: LedgerCallEvent) => void;
  /** Both ledger hooks, to spread into `createLedger({ ...telemetry.ledgerHooks })`. */
  readonly ledgerHooks: {
    readonly onEvent: (event: LedgerEvent) => void;
    readonly onCallEvent: (event: LedgerCallEvent) => void;
  };
  readonly onFuseEvent: (event: FuseEvent) => void;
  readonly onConfigEvent: (event: ConfigEvent) => void;
}

const ERROR = 2;

/** What a recorded transition is: an outcome, an operator release, or a worker marked dead. */
function actionOf(record: TransitionRecord): 'outcome' | 'release' | 'mark_worker_dead' {
  if (record.outcome === 'IN_FLIGHT') return 'mark_worker_dead';
  return record.operatorResolution?.at === record.updatedAt ? 'release' : 'outcome';
}

function transitionAttributes(record: TransitionRecord, recordResults: boolean): OtelAttributes {
  const attributes: OtelAttributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': record.tool,
    'hyphae.transition.key': record.key,
    'hyphae.transition.kind': record.kind,
    'hyphae.outcome': record.outcome,
    'hyphae.boundary': record.boundary,
    'hyphae.fence': record.fence,
    'hyphae.attempts': record.attempts,
    'hyphae.side_effect_class': record.sideEffectClass,
    'hyphae.action': actionOf(record),
  };
  if (record.ticket !== null) attributes['gen_ai.tool.call.id'] = record.ticket;
  if (record.externalOperationRef !== null) attributes['hyphae.external_operation_ref'] = record.externalOperationRef;
  if (record.operatorResolution !== null) {
    attributes['hyphae.operator.verified'] = record.operatorResolution.verified;
    attributes['hyphae.operator.by'] = record.operatorResolution.by;
  }
  if (record.error !== null) attributes['error.type'] = record.error.code ?? record.error.name;
  if (recordResults && record.result !== undefined)
    attributes['gen_ai.tool.call.result'] = JSON.stringify(record.result);
  return attributes;
}

/**
 * Build the telemetry hooks.
 *
 * @example
 * import * as api from '@opentelemetry/api';
 * import { createTelemetry } from 'hyphae/otel';
 *
 * const telemetry = createTelemetry({ api });
 * const config = await loadConfig('hyphae.yaml', { onEvent: telemetry.onConfigEvent });
 */
export function createTelemetry(options: TelemetryOptions): Telemetry {
  checkOptions('createTelemetry', options, false);
  const tracer = options.tracer ?? options.api?.trace.getTracer('hyphae');
  const meter = options.meter ?? options.api?.metrics.getMeter('hyphae');
  const active = options.activeSpan ?? (() => options.api?.trace.getActiveSpan());
  const recordResults = options.recordResults === true;
  const verdicts = meter?.createCounter('hyphae.fuse.verdicts', { description: 'Fuse verdicts by fuse and result' });
  const transitions = meter?.createCounter('hyphae.transitions', { description: 'Transitions recorded, by outcome' });
  const hardBlocks = meter?.createCounter('hyphae.hard_blocks', { description: 'Calls the ledger refused (BLOCKED)' });
  const duration = meter?.createHistogram('hyphae.tool.duration', {
    description: 'From the first attempt to the outcome of a ledgered tool call',
    unit: 's',
  });

  /** The span of each call in progress, by call id: its own, or the active span it enriches. */
  const calls = new Map<number, { readonly span: OtelSpan; readonly own: boolean; polls: number }>();
  // Once the call hook is attached, calls make the spans and count the hard blocks.
  let callsObserved = false;

  function settle(event: Extract<LedgerCallEvent, { type: 'call_settled' }>): void {
    const state = calls.get(event.call.id);
    calls.delete(event.call.id);
    const error = event.ok ? undefined : (event.error as { code?: unknown; name?: unknown; message?: unknown });
    if (error?.code === 'ledger_hard_block') hardBlocks?.add(1, { 'gen_ai.tool.name': event.call.tool });
    if (state === undefined) return;
    const { span } = state;
    if (span.isRecording()) {
      const attributes: OtelAttributes =
        event.record === null
          ? {
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': event.call.tool,
              'hyphae.transition.key': event.call.key,
              'hyphae.transition.kind': event.call.kind,
            }
          : transitionAttributes(event.record, recordResults);
      attributes['hyphae.call.result'] = event.ok ? 'returned' : 'threw';
      attributes['hyphae.polls'] = state.polls;
      if (error !== undefined) {
        const type =
          typeof error.code === 'string' ? error.code : typeof error.name === 'string' ? error.name : 'Error';
        attributes['error.type'] = type;
        if (state.own) span.setStatus({ code: ERROR, message: String(error.message ?? type) });
      }
      span.setAttributes(attributes);
    }
    if (state.own) span.end(event.at);
  }

  function onCallEvent(event: LedgerCallEvent): void {
    callsObserved = true;
    if (event.type === 'call_started') {
      const current = active();
      if (current?.isRecording() === true) {
        calls.set(event.call.id, { span: current, own: false, polls: 0 });
      } else if (tracer !== undefined) {
        const own = tracer.startSpan(`execute_tool ${event.call.tool}`, { startTime: event.at, kind: 0 });
        calls.set(event.call.id, { span: own, own: true, polls: 0 });
      }
      return;
    }
    if (event.type === 'call_settled') {
      settle(event);
      return;
    }
    const state = calls.get(event.call.id);
    if (state === undefined || !state.span.isRecording()) return;
    const { record } = event;
    const add = (name: string, attributes: OtelAttributes): void => {
      state.span.addEvent(name, attributes, event.at);
    };
    switch (event.type) {
      case 'gate':
        if (event.gate === 'POLL') state.polls++;
        add('hyphae.gate', {
          'hyphae.gate': event.gate,
          'hyphae.gate.reason': event.reason,
          'hyphae.outcome': record.outcome,
        });
        return;
      case 'claimed':
        add('hyphae.claim', {
          'hyphae.claim.via': event.via,
          'hyphae.fence': record.fence,
          'hyphae.attempts': record.attempts,
        });
        return;
      case 'lease_renewed':
        add('hyphae.lease_renewed', { 'hyphae.lease_until': record.leaseUntil ?? 0 });
        return;
      case 'fenced':
        add('hyphae.fenced', { 'hyphae.fence': record.fence });
        return;
      case 'recorded':
        add('hyphae.transition_recorded', { 'hyphae.outcome': record.outcome });
        return;
    }
  }

  function onLedgerEvent(event: LedgerEvent): void {
    if (event.type === 'receipt_written') {
      // Without the call hook, a hard block on a record that stays UNKNOWN is seen only through its
      // BLOCKED receipt (one per record version; none without receipts).
      if (!callsObserved && event.receipt?.outcome === 'BLOCKED' && event.record.kind !== 'denial') {
        hardBlocks?.add(1, { 'gen_ai.tool.name': event.record.tool });
        active()?.addEvent('hyphae.hard_block', { 'hyphae.transition.key': event.record.key });
      }
      return;
    }
    if (event.type !== 'transition_recorded') return;
    const { record } = event;
    const action = actionOf(record);
    const metricAttributes = { 'gen_ai.tool.name': record.tool, 'hyphae.outcome': record.outcome };
    transitions?.add(1, { ...metricAttributes, 'hyphae.action': action });
    // A denial is a refusal by the checks, not a hard block by the ledger.
    if (!callsObserved && record.outcome === 'BLOCKED' && record.kind !== 'denial')
      hardBlocks?.add(1, { 'gen_ai.tool.name': record.tool });
    if (action === 'outcome' && record.completedAt !== null) {
      duration?.record(Math.max(0, record.completedAt - record.firstAttemptAt) / 1000, metricAttributes);
    }
    // The call's own span carries its outcome.
    if (action === 'outcome' && callsObserved) return;
    const span = active();
    if (span?.isRecording() === true) {
      span.setAttributes(transitionAttributes(record, recordResults));
      span.addEvent('hyphae.transition_recorded', { 'hyphae.outcome': record.outcome }, record.updatedAt);
      return;
    }
    if (tracer === undefined) return;
    const own = tracer.startSpan(`execute_tool ${record.tool}`, {
      startTime: action === 'outcome' ? record.firstAttemptAt : record.updatedAt,
      kind: 0,
    });
    // A tracer without an SDK hands out spans that record nothing: building their attributes is waste.
    if (own.isRecording()) {
      own.setAttributes(transitionAttributes(record, recordResults));
      if (record.outcome !== 'COMPLETED' && action === 'outcome') {
        own.setStatus({ code: ERROR, message: record.error?.message ?? record.outcome });
      }
    }
    own.end(record.completedAt ?? record.updatedAt);
  }

  function onFuseEvent(event: FuseEvent): void {
    if (event.type !== 'tool_call' && event.type !== 'tool_result' && event.type !== 'model_call') return;
    const { verdict } = event;
    const fuse = verdict.allowed ? 'box' : verdict.fuse;
    const result = verdict.allowed ? 'allowed' : 'refused';
    verdicts?.add(1, { 'hyphae.fuse': fuse, 'hyphae.verdict': result, 'hyphae.check': event.type });
    const span = active();
    if (span?.isRecording() !== true) return;
    const attributes: OtelAttributes = { 'hyphae.fuse': fuse, 'hyphae.verdict': result, 'hyphae.check': event.type };
    if (!verdict.allowed) {
      attributes['hyphae.fuse.code'] = verdict.code;
      attributes['hyphae.fuse.reason'] = verdict.reason;
      attributes['hyphae.fuse.terminal'] = verdict.terminal;
    }
    if (event.type !== 'model_call') attributes['gen_ai.tool.name'] = event.call.name;
    span.addEvent('gen_ai.guardrail.result', attributes, event.at);
  }

  function onConfigEvent(event: ConfigEvent): void {
    if (event.type === 'call') onCallEvent(event.event);
    else if (event.type === 'ledger') onLedgerEvent(event.event);
    else if (event.type === 'fuse') onFuseEvent(event.event);
  }

  return {
    onLedgerEvent,
    onCallEvent,
    ledgerHooks: { onEvent: onLedgerEvent, onCallEvent },
    onFuseEvent,
    onConfigEvent,
  };
}

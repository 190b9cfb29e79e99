/**
 * OpenTelemetry for guarded calls, attached through the hooks hyphae already has: the ledger's
 * `onEvent`, the fuse box's `onEvent`, and `loadConfig`'s `onEvent` (which carries both).
 *
 * - A transition that reaches an outcome (or is released, or its worker marked dead) enriches the
 *   active span — the framework's own tool span — with the GenAI tool attributes and hyphae's own;
 *   without an active span it gets a span of its own, `execute_tool {tool}`, from the claim to the
 *   outcome (the record's own times).
 * - Each fuse verdict is an event `gen_ai.guardrail.result` on the active span.
 * - Metrics: verdicts by fuse and result, transitions by outcome, tool duration, hard blocks.
 *
 * Nothing is installed globally. When no hook is given these functions, nothing is paid.
 */
import type { ConfigEvent } from '../config/load-config.js';
import type { FuseEvent } from '../fuses/events.js';
import { checkOptions } from '../invalid-argument.js';
import type { LedgerEvent } from '../ledger/types.js';
import type { TransitionRecord } from '../storage/transition-record.js';
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

  function onLedgerEvent(event: LedgerEvent): void {
    if (event.type === 'receipt_written') {
      // A hard block on a record that stays UNKNOWN is seen only through its BLOCKED receipt (one per
      // record version; none without receipts).
      if (event.receipt?.outcome === 'BLOCKED') {
        hardBlocks?.add(1, { 'gen_ai.tool.name': event.record.tool });
        active()?.addEvent('hyphae.hard_block', { 'hyphae.transition.key': event.record.key });
      }
      return;
    }
    const { record } = event;
    const action = actionOf(record);
    const metricAttributes = { 'gen_ai.tool.name': record.tool, 'hyphae.outcome': record.outcome };
    transitions?.add(1, { ...metricAttributes, 'hyphae.action': action });
    if (record.outcome === 'BLOCKED') hardBlocks?.add(1, { 'gen_ai.tool.name': record.tool });
    if (action === 'outcome' && record.completedAt !== null) {
      duration?.record(Math.max(0, record.completedAt - record.firstAttemptAt) / 1000, metricAttributes);
    }
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
    if (event.type === 'ledger') onLedgerEvent(event.event);
    else if (event.type === 'fuse') onFuseEvent(event.event);
  }

  return { onLedgerEvent, onFuseEvent, onConfigEvent };
}

/**
 * How `hyphae transitions` shows records: a table, a detail view, and JSON.
 */
import { decisionDigest, effectStateOf } from '../../ledger/decision.js';
import { isStuck, shownOutcome } from '../../ledger/operator/read-model.js';
import type { TransitionDecision } from '../../records/decision.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import type { Output } from '../output.js';

function time(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString();
}

/** A record as JSON, with the derived outcome and effect state next to the stored fields. */
export function recordJson(record: TransitionRecord, now: number): Record<string, unknown> {
  return {
    ...record,
    shownOutcome: shownOutcome(record, now),
    effectState: effectStateOf(record),
    stuck: isStuck(record, now),
  };
}

/** The decision's lines: a summary, then one line per verdict. */
function decisionLines(decision: TransitionDecision | undefined): readonly string[] {
  if (decision === undefined) return ['none recorded (written before the decision protocol)'];
  const summary = decision.allowed
    ? `allowed (${decision.verdicts.length} checks, digest ${decisionDigest(decision).slice(0, 16)})`
    : `denied: ${decision.deniedReasons.join('; ')}`;
  return [
    summary,
    ...decision.verdicts.map(
      (v) => `${v.verdict.padEnd(5)} ${v.check}${v.reason === undefined ? '' : `: ${v.reason}`}`,
    ),
  ];
}

/** Print records as a table (or a line saying there are none). */
export function printTable(out: Output, records: readonly TransitionRecord[], now: number): void {
  if (records.length === 0) {
    out.line('No transitions match');
    return;
  }
  const rows = records.map((r) => [
    r.key,
    r.tool,
    r.kind,
    shownOutcome(r, now),
    r.boundary,
    String(r.attempts),
    time(r.updatedAt),
  ]);
  const head = ['KEY', 'TOOL', 'KIND', 'OUTCOME', 'BOUNDARY', 'ATTEMPTS', 'UPDATED'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const format = (row: readonly string[]): string =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  out.line(out.bold(format(head)));
  for (const [index, row] of rows.entries()) {
    const record = records[index] as TransitionRecord;
    const line = format(row);
    out.line(isStuck(record, now) ? out.fail(line) : line);
  }
}

/** Print one record, one field a line. */
export function printRecord(out: Output, record: TransitionRecord, now: number): void {
  const scope = Object.entries(record.scope)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
  const fields: [string, string][] = [
    ['key', record.key],
    ['tool', `${record.tool} (${record.kind})`],
    ['outcome', shownOutcome(record, now)],
    ['effect', effectStateOf(record)],
    ['boundary', record.boundary],
    ['class', `${record.sideEffectClass} (${record.retryPermission}, ${record.spendability})`],
    ['scope', scope === '' ? '-' : scope],
    ['ticket', record.ticket ?? '-'],
    ['owner', record.owner ?? '-'],
    ['lease until', time(record.leaseUntil)],
    ['heartbeat', time(record.lastHeartbeatAt)],
    [
      'worker dead',
      record.workerDeath === undefined || record.workerDeath === null
        ? '-'
        : `${record.workerDeath.owner} by ${record.workerDeath.by} at ${time(record.workerDeath.at)}${record.workerDeath.overrideHeartbeat ? ' (heartbeat overridden)' : ''}: ${record.workerDeath.reason}`,
    ],
    ['attempts', String(record.attempts)],
    ['external ref', record.externalOperationRef ?? '-'],
    ['provider key', record.providerIdempotencyKey ?? '-'],
    ['error', record.error === null ? '-' : `${record.error.name}: ${record.error.message}`],
    ['result', record.result === undefined ? '-' : JSON.stringify(record.result)],
    [
      'release',
      record.operatorResolution === null
        ? '-'
        : `${record.operatorResolution.verified} by ${record.operatorResolution.by}: ${record.operatorResolution.reason}`,
    ],
    ['receipt', record.receiptRef ?? '-'],
    ...(record.kind === 'denial'
      ? ([['refused', `${record.refusedTransition ?? '-'} (never claimed; ${record.attempts} refusal(s) counted)`]] as [
          string,
          string,
        ][])
      : []),
    ['created', time(record.createdAt)],
    ['updated', time(record.updatedAt)],
  ];
  const [first = '', ...verdicts] = decisionLines(record.decision);
  fields.splice(
    fields.findIndex(([label]) => label === 'error'),
    0,
    ['decision', first],
  );
  const width = Math.max(...fields.map(([label]) => label.length));
  for (const [label, value] of fields) {
    out.line(`${out.dim(label.padEnd(width))}  ${value}`);
    if (label === 'decision') for (const line of verdicts) out.line(`${' '.repeat(width)}    ${line}`);
  }
}

/**
 * A transition's page: its facts, one timeline, its receipts with the chain's verdict, and the
 * operator actions (each leads to a confirm step first).
 */
import { effectStateOf } from '../../ledger/decision.js';
import { shownOutcome } from '../../ledger/operator/read-model.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import type { Receipt } from '../../storage/receipt.js';
import type { ActionKind } from '../actions.js';
import type { ChainView } from '../receipt-chain.js';
import { buildTimeline, type TimelineEntry } from '../timeline.js';
import { type Html, html } from './html.js';
import { isoTime, outcomeBadge } from './layout.js';
import { chainVerdict, receiptTable } from './receipts.js';

/** What the page needs besides the record. */
export interface TransitionView {
  readonly ledger: string;
  readonly record: TransitionRecord;
  readonly chain: ChainView | undefined;
  readonly receipts: readonly Receipt[];
  /** The session's CSRF secret, when the viewer may act. */
  readonly csrf: string | undefined;
  /** Why actions are not offered (read-only mode, a read token), or undefined. */
  readonly noActions: string | undefined;
  readonly now: number;
}

function facts(record: TransitionRecord, ledger: string, now: number): Html {
  const json = (value: unknown) => html`<code>${JSON.stringify(value)}</code>`;
  const rows: [string, Html | string][] = [
    ['Key', html`<code>${record.key}</code>`],
    ['Ledger', ledger],
    ['Tool', `${record.tool} (${record.kind})`],
    ['Outcome', outcomeBadge(shownOutcome(record, now))],
    ['Effect state', html`<span class="effect" data-effect="${effectStateOf(record)}">${effectStateOf(record)}</span>`],
    [
      'Decision',
      record.decision === undefined
        ? 'none recorded (written before the decision protocol)'
        : record.decision.allowed
          ? 'allowed'
          : `denied: ${record.decision.deniedReasons.join('; ')}`,
    ],
    ['Side-effect class', `${record.sideEffectClass} · ${record.retryPermission} · ${record.spendability}`],
    ['Boundary', record.boundary],
    ['Owner / fence', `${record.owner ?? 'none'} / fence ${record.fence}`],
    ['Lease', record.leaseUntil === null ? 'none' : `until ${isoTime(record.leaseUntil)}`],
    ['Attempts', String(record.attempts)],
    ['External operation', record.externalOperationRef ?? '-'],
    ['Provider idempotency key', record.providerIdempotencyKey ?? '-'],
    ['Agent / policy', `${record.agentId} / ${record.policyVersion}`],
    [
      'Thread / run / node',
      `${record.scope.threadId ?? '-'} / ${record.scope.runId ?? '-'} / ${record.scope.node ?? '-'}`,
    ],
    ['Ticket', record.ticket ?? '-'],
    ['Result', record.result === undefined ? '-' : json(record.result)],
    ['Error', record.error === null ? '-' : `${record.error.name}: ${record.error.message}`],
    ['Receipt ref', record.receiptRef ?? '-'],
  ];
  return html`<dl class="facts">${rows.map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`)}</dl>`;
}

function actionForm(key: string, csrf: string, kind: ActionKind, title: string, withResult: boolean): Html {
  return html`<form class="action card" method="post" action="/t/${encodeURIComponent(key)}/confirm" data-action="${kind}">
<h2>${title}</h2>
<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="action" value="${kind}">
<label>Actor (who you are)<input name="by" required></label>
<label>Reason<input name="reason" required></label>
${withResult ? html`<label>Result (JSON, optional)<textarea name="result"></textarea></label>` : ''}
${kind === 'mark_dead' ? html`<label><input type="checkbox" name="override_heartbeat" value="yes"> Override a fresh heartbeat (I know the worker is gone)</label>` : ''}
<button type="submit">Review…</button>
</form>`;
}

function actions(view: TransitionView): Html {
  if (view.record.kind === 'denial') {
    return html`<p class="note" data-denial>A denial record: the checks refused this call before anything was claimed, so there is nothing to release. The refused transition is <code>${view.record.refusedTransition ?? '-'}</code>.</p>`;
  }
  if (view.noActions !== undefined || view.csrf === undefined) {
    return html`<p class="note">${view.noActions ?? 'Actions need a browser session.'}</p>`;
  }
  const { key } = view.record;
  return html`<div class="grid">
${actionForm(key, view.csrf, 'release_completed', 'Release: it completed', true)}
${actionForm(key, view.csrf, 'release_not_executed', 'Release: it did not execute', false)}
${view.record.outcome === 'IN_FLIGHT' ? actionForm(key, view.csrf, 'mark_dead', 'Mark the worker dead', false) : ''}
</div>`;
}

function verdictList(entry: TimelineEntry): Html | string {
  if (entry.verdicts === undefined) return '';
  return html`<ul class="verdicts">${entry.verdicts.map(
    (v) =>
      html`<li data-check="${v.check}" data-verdict="${v.verdict}"><span class="verdict v-${v.verdict}">${v.verdict}</span> <code>${v.check}</code>${v.reason === undefined ? '' : html` <span class="note">${v.reason}</span>`}</li>`,
  )}</ul>`;
}

/** The transition page's content. */
export function transitionContent(view: TransitionView, message: Html | undefined): Html {
  const timeline = buildTimeline(view.record, view.receipts, view.now);
  return html`${message ?? ''}
<div id="transition" data-live>
<div class="grid"><section class="card"><h2>Facts</h2>${facts(view.record, view.ledger, view.now)}</section>
<section class="card"><h2>Timeline</h2><ol class="timeline">${timeline.map(
    (entry) =>
      html`<li class="k-${entry.kind}"><time>${isoTime(entry.at)}</time><strong>${entry.title}</strong><br><span class="note">${entry.detail}</span>${verdictList(entry)}</li>`,
  )}</ol><p class="note">Built from the record's times and the receipts on the chain.</p></section></div>
<section class="card"><h2>Receipts</h2>${
    view.chain === undefined
      ? html`<p class="note">The config has no receipts.</p>`
      : html`${chainVerdict(view.chain)}${receiptTable(view.chain, view.receipts)}`
  }</section>
</div>
<h2>Operator actions</h2>
${actions(view)}`;
}

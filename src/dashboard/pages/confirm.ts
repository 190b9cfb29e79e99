/**
 * The confirm step: what the action will do, then one button that does it.
 */

import { shownOutcome } from '../../ledger/operator/read-model.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import { type ActionRequest, describeAction } from '../actions.js';
import { type Html, html } from './html.js';
import { outcomeBadge } from './layout.js';

const TITLES: Readonly<Record<ActionRequest['kind'], string>> = {
  release_completed: 'Release as completed',
  release_not_executed: 'Release as not executed',
  mark_dead: 'Mark the worker dead',
};

/** The confirm page's content. */
export function confirmContent(record: TransitionRecord, request: ActionRequest, csrf: string, now: number): Html {
  const key = encodeURIComponent(record.key);
  return html`<div class="card" data-confirm="${request.kind}">
<h2>${TITLES[request.kind]} · <code>${record.tool}</code> ${outcomeBadge(shownOutcome(record, now))}</h2>
<p><strong>What will happen:</strong> <span data-consequence>${describeAction(request, record)}</span></p>
<dl class="facts"><dt>Transition</dt><dd><code>${record.key}</code></dd><dt>Actor</dt><dd>${request.by}</dd>
<dt>Reason</dt><dd>${request.reason}</dd>${request.resultText === undefined ? '' : html`<dt>Result</dt><dd><code>${request.resultText}</code></dd>`}</dl>
<p class="note">The ledger records the actor and the reason, and writes a receipt when receipts are configured. It refuses when a lease is held or the transition is already resolved.</p>
<form class="action" method="post" action="/t/${key}/act">
<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="action" value="${request.kind}">
<input type="hidden" name="by" value="${request.by}"><input type="hidden" name="reason" value="${request.reason}">
${request.resultText === undefined ? '' : html`<input type="hidden" name="result" value="${request.resultText}">`}
${request.overrideHeartbeat === true ? html`<input type="hidden" name="override_heartbeat" value="yes">` : ''}
<input type="hidden" name="confirm" value="yes">
<p><button class="danger" type="submit">Confirm: ${TITLES[request.kind].toLowerCase()}</button> <a href="/t/${key}">Cancel</a></p>
</form>
</div>`;
}

/**
 * Bulk action pages: the form under a filtered list, the impact preview (how many, which, what will
 * happen to each), and the report of what happened to each.
 */

import { shownOutcome } from '../../ledger/operator/read-model.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import type { ActionRequest } from '../actions.js';
import { type BulkItemResult, type BulkSelection, bulkImpact } from '../bulk.js';
import { filterTextFields, type ListParams } from '../queries.js';
import { type Html, html } from './html.js';
import { flash, outcomeBadge } from './layout.js';

const TITLES: Readonly<Record<ActionRequest['kind'], string>> = {
  release_completed: 'Release as completed',
  release_not_executed: 'Release as not executed',
  mark_dead: 'Mark the worker dead',
};

/** The list filter as hidden fields, so the preview selects what the list showed. */
function filterFields(params: ListParams): Html {
  const outcomes = params.outcomes.join(',');
  const fields: [string, string][] = [
    ['ledger', params.ledger],
    ...(outcomes === '' ? [] : ([['outcome', outcomes]] as [string, string][])),
    ...filterTextFields(params),
  ];
  return html`${fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}`;
}

/** The bulk action form shown under a filtered list. */
export function bulkForm(params: ListParams, csrf: string, bound: number): Html {
  return html`<form class="action card" method="post" action="/bulk/preview" data-bulk>
<h2>Act on every transition this filter selects</h2>
<p class="note">The newest ${bound} at most. Next comes a preview of how many, which, and what will happen to each; nothing changes before you confirm.</p>
<input type="hidden" name="_csrf" value="${csrf}">${filterFields(params)}
<label>Action<select name="action">
<option value="release_not_executed">Release: it did not execute (the tool will run once more)</option>
<option value="release_completed">Release: it completed (record a result)</option>
<option value="mark_dead">Mark the worker dead (IN_FLIGHT only)</option>
</select></label>
<label>Actor (who you are)<input name="by" required></label>
<label>Reason<input name="reason" required></label>
<label>Result (JSON, optional, for a release as completed)<textarea name="result"></textarea></label>
<button type="submit">Preview…</button>
</form>`;
}

function requestFields(request: ActionRequest): Html {
  return html`<input type="hidden" name="action" value="${request.kind}">
<input type="hidden" name="by" value="${request.by}"><input type="hidden" name="reason" value="${request.reason}">
${request.resultText === undefined ? '' : html`<input type="hidden" name="result" value="${request.resultText}">`}`;
}

/** The impact preview and its confirm form (which carries exactly the keys shown). */
export function bulkPreviewContent(
  params: ListParams,
  request: ActionRequest,
  selection: BulkSelection,
  csrf: string,
  now: number,
  bound: number,
): Html {
  const { records } = selection;
  const impacts = records.map((record) => ({ record, impact: bulkImpact(request.kind, record, now) }));
  const applies = impacts.filter((item) => item.impact.applies).length;
  const back = `/transitions?ledger=${encodeURIComponent(params.ledger)}`;
  if (records.length === 0)
    return html`${flash('bad', 'No transition matches this filter: nothing to do')}<p><a href="${back}">Back</a></p>`;
  return html`<div class="card" data-bulk-preview>
<h2>${TITLES[request.kind]} · <span data-bulk-count>${records.length}</span> transition${records.length === 1 ? '' : 's'}</h2>
<p><strong>What will happen:</strong> <span data-bulk-summary>${applies} will change; ${records.length - applies} will likely be refused by the ledger (they are still tried, and each refusal is reported).</span>${
    selection.more
      ? html` <strong>More transitions match than one action takes (${bound}): only the newest ${bound} are here.</strong>`
      : ''
  }${selection.scanCapped ? html` <strong>The search stopped at its scan bound: older transitions were not searched.</strong>` : ''}</p>
<dl class="facts"><dt>Actor</dt><dd>${request.by}</dd><dt>Reason</dt><dd>${request.reason}</dd>${
    request.resultText === undefined ? '' : html`<dt>Result</dt><dd><code>${request.resultText}</code></dd>`
  }</dl>
<table><thead><tr><th>Key</th><th>Tool</th><th>Outcome</th><th>Boundary</th><th>What will happen</th></tr></thead><tbody>${impacts.map(
    ({ record, impact }) =>
      html`<tr data-key="${record.key}" data-applies="${impact.applies ? 'yes' : 'no'}"><td class="key"><a href="/t/${encodeURIComponent(record.key)}">${record.key.slice(0, 16)}…</a></td><td>${record.tool}</td><td>${outcomeBadge(shownOutcome(record, now))}</td><td>${record.boundary}</td><td>${impact.effect}</td></tr>`,
  )}</tbody></table>
<form class="action" method="post" action="/bulk/act">
<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="ledger" value="${params.ledger}">
${requestFields(request)}
<input type="hidden" name="keys" value="${records.map((record) => record.key).join(',')}">
<input type="hidden" name="confirm" value="yes">
<p class="note">Each transition goes through the ledger's operator API in turn, with this actor and reason, and gets its own receipt when receipts are configured.</p>
<p><button class="danger" type="submit">Confirm: ${TITLES[request.kind].toLowerCase()} × ${records.length}</button> <a href="${back}">Cancel</a></p>
</form>
</div>`;
}

function doneDetail(request: ActionRequest, record: TransitionRecord, now: number): string {
  if (request.kind === 'release_not_executed') {
    return `released as not executed: the next call runs the tool once more (still ${shownOutcome(record, now)} until then)`;
  }
  if (request.kind === 'mark_dead') return 'lease ended: the next call finds it EXPIRED';
  return `now ${record.outcome}: the next call returns the recorded result`;
}

/** What happened to each transition. */
export function bulkResultsContent(
  ledger: string,
  request: ActionRequest,
  results: readonly BulkItemResult[],
  now: number,
): Html {
  const done = results.filter((result) => result.ok).length;
  const summary = `${TITLES[request.kind]} by ${request.by}: ${done} done, ${results.length - done} refused`;
  return html`${flash(done === results.length ? 'ok' : 'bad', summary)}
<table data-bulk-results><thead><tr><th>Key</th><th>Tool</th><th>Result</th><th>Detail</th></tr></thead><tbody>${results.map(
    (result) =>
      html`<tr data-key="${result.key}" data-result="${result.ok ? 'done' : 'refused'}"><td class="key"><a href="/t/${encodeURIComponent(result.key)}">${result.key.slice(0, 16)}…</a></td>${
        result.ok
          ? html`<td>${result.record.tool}</td><td>done</td><td>${doneDetail(request, result.record, now)}; receipt <code>${result.record.receiptRef ?? 'none (receipts off)'}</code></td>`
          : html`<td>${result.tool ?? '-'}</td><td>refused</td><td><code>${result.code}</code>: ${result.message}</td>`
      }</tr>`,
  )}</tbody></table>
<p><a href="/transitions?ledger=${encodeURIComponent(ledger)}">Back to the list</a></p>`;
}

/**
 * The list page: filters (outcome, tool, time range, agent, thread, run, free text), one page of
 * results, and the cursor to the next page.
 */
import { FILTER_KINDS, FILTER_OUTCOMES, shownOutcome } from '../../ledger/operator/read-model.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import { filterTextFields, type ListParams, type ListResult } from '../queries.js';
import { bulkForm } from './bulk.js';
import { type Html, html } from './html.js';
import { isoTime, outcomeBadge } from './layout.js';

function row(record: TransitionRecord, now: number): Html {
  return html`<tr data-key="${record.key}" data-kind="${record.kind}">
<td class="key"><a href="/t/${encodeURIComponent(record.key)}">${record.key.slice(0, 16)}…</a></td>
<td>${record.tool}${record.kind === 'denial' ? html` <span class="note">(denial)</span>` : ''}</td><td>${outcomeBadge(shownOutcome(record, now))}</td><td>${record.boundary}</td>
<td>${record.agentId}</td><td class="mono">${record.scope.threadId ?? '-'} / ${record.scope.runId ?? '-'}</td>
<td class="mono">${record.ticket ?? '-'}</td><td class="mono">${record.externalOperationRef ?? '-'}</td>
<td>${record.attempts}</td><td>${isoTime(record.updatedAt)}</td></tr>`;
}

function paramsUrl(params: ListParams, cursor: string | undefined): string {
  const query = new URLSearchParams({ ledger: params.ledger });
  for (const outcome of params.outcomes) query.append('outcome', outcome);
  for (const [name, value] of filterTextFields(params)) query.set(name, value);
  if (cursor !== undefined && cursor !== '') query.set('cursor', cursor);
  return `/transitions?${query.toString()}`;
}

function filterForm(params: ListParams): Html {
  const input = (name: string, label: string, value: string | undefined, placeholder = '') =>
    html`<label>${label}<input name="${name}" value="${value ?? ''}" placeholder="${placeholder}"></label>`;
  return html`<form class="filters" method="get" action="/transitions">
<input type="hidden" name="ledger" value="${params.ledger}">
<label>Outcome<select name="outcome" multiple size="7">${FILTER_OUTCOMES.map(
    (outcome) =>
      html`<option value="${outcome}"${params.outcomes.includes(outcome) ? html` selected` : ''}>${outcome}</option>`,
  )}</select></label>
${input('tool', 'Tool', params.tool)}
<label>Kind<select name="kind"><option value="">any</option>${FILTER_KINDS.map(
    (kind) => html`<option value="${kind}"${params.kind === kind ? html` selected` : ''}>${kind}</option>`,
  )}</select></label>
${input('from', 'Updated from', params.fromText, '2026-12-01T09:00Z')}
${input('to', 'Updated before', params.toText, '2026-12-01T18:00Z')}
${input('agent', 'Agent', params.agent)}
${input('thread', 'Thread', params.thread)}
${input('run', 'Run', params.run)}
${input('q', 'Key, ticket or external ref', params.text)}
<button type="submit">Filter</button> <a href="/transitions?ledger=${params.ledger}">Clear</a>
</form>`;
}

function bounds(result: ListResult): Html {
  if (!result.filteredHere) {
    return html`<p class="note">Outcome, tool and time range are filtered by the store's own list query; ${result.records.length} shown.</p>`;
  }
  return html`<p class="note">Agent, thread, run, free text and EXPIRED are filtered here, within the pages the store returned: ${result.scanned} records read for this page${
    result.scanCapped
      ? html`, <strong>the bound of one request; older records were not searched yet</strong> (read on with Older)`
      : ''
  }.</p>`;
}

/** The list page's content. */
export function listContent(
  params: ListParams,
  result: ListResult,
  now: number,
  error?: string,
  bulk?: { readonly csrf: string; readonly bound: number },
): Html {
  const rows = result.records.map((record) => row(record, now));
  return html`${filterForm(params)}
${error === undefined ? '' : html`<div class="flash bad" role="alert">${error}</div>`}
<div id="results" data-live>
<table><thead><tr><th>Key</th><th>Tool</th><th>Outcome</th><th>Boundary</th><th>Agent</th><th>Thread / run</th><th>Ticket</th><th>External ref</th><th>Attempts</th><th>Updated</th></tr></thead>
<tbody>${rows.length === 0 ? html`<tr><td colspan="10">No transitions match.</td></tr>` : rows}</tbody></table>
${bounds(result)}
</div>
<p class="pager">${params.cursor === undefined ? '' : html`<a href="${paramsUrl(params, undefined)}">Newest</a> · `}${
    result.nextCursor === null
      ? html`<span class="note">No older transitions.</span>`
      : html`<a rel="next" href="${paramsUrl(params, result.nextCursor)}">Older →</a>`
  }</p>
${bulk === undefined ? '' : bulkForm(params, bulk.csrf, bulk.bound)}`;
}

/**
 * The overview: per ledger, counts by outcome, tool and agent over a bounded window, and what is
 * stuck (UNKNOWN, BLOCKED, FAILED_AFTER_EFFECT, IN_FLIGHT past its lease).
 */

import { shownOutcome } from '../../ledger/operator/read-model.js';
import type { LedgerSummary, QueryLimits } from '../queries.js';
import type { ChainView } from '../receipt-chain.js';
import { type Html, html } from './html.js';
import { isoTime, outcomeBadge } from './layout.js';
import { chainVerdict } from './receipts.js';

const STUCK_SHOWN = 20;

function counts(entries: readonly [string, number][], capped: boolean, link: (name: string) => string): Html {
  if (entries.length === 0) return html`<p class="note">None in the window.</p>`;
  const plus = capped ? '+' : '';
  return html`<div class="counts">${entries.map(
    ([name, count]) => html`<a class="count" href="${link(name)}"><b>${count}${plus}</b>${name}</a>`,
  )}</div>`;
}

function stuckTable(summary: LedgerSummary, now: number): Html {
  if (summary.stuck.length === 0) return html`<p class="note">Nothing is stuck.</p>`;
  const rows = summary.stuck.slice(0, STUCK_SHOWN).map(
    (record) => html`<tr>
<td class="key"><a href="/t/${encodeURIComponent(record.key)}">${record.key.slice(0, 16)}…</a></td>
<td>${record.tool}</td><td>${outcomeBadge(shownOutcome(record, now))}</td>
<td>${record.boundary}</td><td class="mono">${record.externalOperationRef ?? '-'}</td><td>${isoTime(record.updatedAt)}</td></tr>`,
  );
  const more =
    summary.stuck.length > STUCK_SHOWN || summary.stuckCapped
      ? html`<p class="note">${summary.stuck.length}${summary.stuckCapped ? '+' : ''} stuck; the newest ${STUCK_SHOWN} are shown. <a href="/transitions?ledger=${summary.name}&amp;outcome=UNKNOWN&amp;outcome=BLOCKED&amp;outcome=FAILED_AFTER_EFFECT&amp;outcome=EXPIRED">See them all</a>.</p>`
      : '';
  return html`<table><thead><tr><th>Key</th><th>Tool</th><th>Outcome</th><th>Boundary</th><th>External ref</th><th>Updated</th></tr></thead>
<tbody>${rows}</tbody></table>${more}`;
}

function ledgerCard(summary: LedgerSummary, now: number, limits: QueryLimits): Html {
  const list = (param: string) => (value: string) =>
    `/transitions?ledger=${encodeURIComponent(summary.name)}&${param}=${encodeURIComponent(value)}`;
  const hours = Math.round(limits.windowMs / 3_600_000);
  return html`<section class="card" data-ledger="${summary.name}">
<h2>Ledger <code>${summary.name}</code> <span class="note">(${summary.store})</span></h2>
<h2>Stuck: <span data-count="stuck">${summary.stuck.length}${summary.stuckCapped ? '+' : ''}</span></h2>
${stuckTable(summary, now)}
<h2>By outcome</h2>
${counts(summary.byOutcome, summary.capped, list('outcome'))}
<div class="grid"><div><h2>By tool</h2>${counts(summary.byTool, summary.capped, list('tool'))}</div>
<div><h2>By agent</h2>${counts(summary.byAgent, summary.capped, list('agent'))}</div></div>
<p class="note">Counts cover the transitions updated in the last ${hours} h (since ${isoTime(summary.windowFrom)}), ${
    summary.capped
      ? html`<strong>the newest ${summary.scanned} of more</strong> (a count with + is a lower bound)`
      : html`all ${summary.scanned} of them`
  }, read through the store's own paged list. Stuck transitions are of any age, at most ${limits.stuckLimit} read.</p>
</section>`;
}

/** The overview's content (the live part included). */
export function overviewContent(
  summaries: readonly LedgerSummary[],
  chain: ChainView | undefined,
  now: number,
  limits: QueryLimits,
): Html {
  return html`<div id="overview" data-live>
${summaries.map((summary) => ledgerCard(summary, now, limits))}
<section class="card"><h2>Receipts</h2>${chain === undefined ? html`<p class="note">The config has no receipts.</p>` : chainVerdict(chain)}</section>
</div>`;
}

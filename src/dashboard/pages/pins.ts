/**
 * The MCP pins page: every pinned tool definition, the changed ones in quarantine with what
 * changed, and (for an operator who may act) the review forms; and the review's confirm step.
 */
import {
  changedFields,
  type DashboardPin,
  describePinReview,
  type LedgerPins,
  type PinReviewRequest,
} from '../pins.js';
import { type Html, html } from './html.js';
import { isoTime } from './layout.js';

function status(pin: DashboardPin): Html {
  if (pin.pending !== null) return html`<span class="badge o-BLOCKED">quarantined: review pending</span>`;
  if (pin.review?.action === 'rejected') {
    return html`<span class="badge o-UNKNOWN">pinned; a change was rejected</span>`;
  }
  return html`<span class="badge o-COMPLETED">pinned</span>`;
}

function lastReview(pin: DashboardPin): string {
  const review = pin.review;
  if (review === undefined || review === null) return pin.approvedBy === null ? '-' : `approved by ${pin.approvedBy}`;
  return `${review.action} by ${review.by}${review.reason === null ? '' : `: ${review.reason}`} (${isoTime(review.at)})`;
}

function reviewForm(ledger: string, pin: DashboardPin, hash: string, csrf: string, action: 'approve' | 'reject'): Html {
  const title = action === 'approve' ? 'Approve the new definition' : 'Reject it (keep the old pin)';
  return html`<form class="action card" method="post" action="/pins/confirm" data-pin-action="${action}">
<h2>${title}</h2>
<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="action" value="${action}">
<input type="hidden" name="ledger" value="${ledger}"><input type="hidden" name="server" value="${pin.server}">
<input type="hidden" name="tool" value="${pin.tool}"><input type="hidden" name="hash" value="${hash}">
<label>Actor (who you are)<input name="by" required></label>
<label>Reason<input name="reason" required></label>
<button type="submit"${action === 'reject' ? html` class="danger"` : ''}>Review…</button>
</form>`;
}

function pendingCard(ledger: string, pin: DashboardPin, csrf: string | undefined, noActions: string | undefined): Html {
  const pending = pin.pending;
  if (pending === null) return html``;
  const fields = changedFields(pin.definition, pending.definition);
  const field = (definition: unknown, name: string) =>
    JSON.stringify((definition as Record<string, unknown> | null)?.[name] ?? null, null, 2);
  return html`<section class="card" data-pin="${pin.server}/${pin.tool}">
<h2>Quarantined: <code>${pin.tool}</code> of <code>${pin.server}</code></h2>
<p>Its definition changed on ${isoTime(pending.seenAt)}: the proxy hides the tool and refuses every call to it until it is reviewed. Changed: ${fields.map((name, i) => html`${i === 0 ? '' : ', '}<code>${name}</code>`)}.</p>
<table data-pin-diff><thead><tr><th>Field</th><th>Pinned (<code>${pin.hash.slice(0, 12)}</code>)</th><th>New (<code>${pending.hash.slice(0, 12)}</code>)</th></tr></thead>
<tbody>${fields.map(
    (name) =>
      html`<tr><td><code>${name}</code></td><td><pre class="mono">${field(pin.definition, name)}</pre></td><td><pre class="mono">${field(pending.definition, name)}</pre></td></tr>`,
  )}</tbody></table>
${
  noActions !== undefined || csrf === undefined
    ? html`<p class="note">${noActions ?? 'Reviews need a browser session.'}</p>`
    : html`<div class="grid">${reviewForm(ledger, pin, pending.hash, csrf, 'approve')}${reviewForm(ledger, pin, pending.hash, csrf, 'reject')}</div>`
}
</section>`;
}

/** The pins page's content. */
export function pinsContent(
  all: readonly LedgerPins[],
  csrf: string | undefined,
  noActions: string | undefined,
  message: Html | undefined,
): Html {
  const count = all.reduce((n, ledger) => n + ledger.pins.length, 0);
  const waiting = all.reduce((n, ledger) => n + ledger.pins.filter((pin) => pin.pending !== null).length, 0);
  return html`${message ?? ''}
<div id="pins" data-live>
<p>The MCP proxy (<code>hyphae mcp</code>) pins each upstream tool's definition when it first sees it; a definition that changes is quarantined — hidden and refused — until an operator approves or rejects it here or with <code>hyphae mcp approve</code> / <code>hyphae mcp reject</code>. <span data-count="quarantined">${waiting}</span> waiting for review, ${count} pinned.</p>
${all.map(
  (
    ledger,
  ) => html`${ledger.pins.filter((pin) => pin.pending !== null).map((pin) => pendingCard(ledger.ledger, pin, csrf, noActions))}
<section class="card" data-ledger="${ledger.ledger}"><h2>Pins in ledger <code>${ledger.ledger}</code></h2>${
    ledger.pins.length === 0
      ? html`<p class="note">No pins: the MCP proxy has not listed tools with this ledger.</p>`
      : html`<table><thead><tr><th>Server</th><th>Tool</th><th>Status</th><th>Pinned hash</th><th>Last review</th></tr></thead><tbody>${ledger.pins.map(
          (pin) =>
            html`<tr data-pin-row="${pin.server}/${pin.tool}"><td><code>${pin.server}</code></td><td><code>${pin.tool}</code></td><td>${status(pin)}</td><td class="mono">${pin.hash.slice(0, 16)}…</td><td>${lastReview(pin)}</td></tr>`,
        )}</tbody></table>`
  }${ledger.capped ? html`<p class="note">The first ${ledger.pins.length} pins are shown.</p>` : ''}</section>`,
)}
</div>`;
}

/** The review's confirm step. */
export function pinConfirmContent(request: PinReviewRequest, csrf: string): Html {
  const verb = request.action === 'approve' ? 'approve' : 'reject';
  return html`<div class="card" data-confirm="pin_${verb}">
<h2>${verb === 'approve' ? 'Approve' : 'Reject'} the new definition of <code>${request.tool}</code> of <code>${request.server}</code></h2>
<p><strong>What will happen:</strong> <span data-consequence>${describePinReview(request)}</span></p>
<dl class="facts"><dt>Definition</dt><dd><code>${request.hash}</code></dd><dt>Actor</dt><dd>${request.by}</dd><dt>Reason</dt><dd>${request.reason}</dd></dl>
<p class="note">The pin records the actor, the reason and the time. The review is refused when the definition changed again since this page was read.</p>
<form class="action" method="post" action="/pins/act">
<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="action" value="${request.action}">
<input type="hidden" name="ledger" value="${request.ledger}"><input type="hidden" name="server" value="${request.server}">
<input type="hidden" name="tool" value="${request.tool}"><input type="hidden" name="hash" value="${request.hash}">
<input type="hidden" name="by" value="${request.by}"><input type="hidden" name="reason" value="${request.reason}">
<input type="hidden" name="confirm" value="yes">
<p><button class="danger" type="submit">Confirm: ${verb}</button> <a href="/pins">Cancel</a></p>
</form>
</div>`;
}

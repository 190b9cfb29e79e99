/**
 * The receipt chain's verdict: verified (count and head), or where it breaks and why.
 */
import type { Receipt } from '../../storage/receipt.js';
import type { ChainView } from '../receipt-chain.js';
import { type Html, html } from './html.js';
import { flash } from './layout.js';

/** The verdict of a chain, in a sentence or two. */
export function chainVerdict(chain: ChainView): Html {
  const { verdict } = chain;
  if (verdict.ok) {
    return html`<div data-chain="ok">${flash('ok', `Chain verified: ${verdict.count} receipts, every signature and link intact`)}
<p class="note">${chain.location}${verdict.head.hash === null ? '' : html`, head seq ${verdict.head.seq}, hash <code>${verdict.head.hash}</code>`}</p></div>`;
  }
  const broken = verdict.firstBroken;
  return html`<div data-chain="broken">${flash('bad', `Chain broken at seq ${broken.seq}${broken.line === undefined ? '' : ` (line ${broken.line})`}: ${broken.reason}`)}
<p>${broken.detail}. ${verdict.count} receipts verified before it.</p><p class="note">${chain.location}</p></div>`;
}

/** Whether one receipt lies within the verified part of the chain. */
export function receiptStatus(chain: ChainView, receipt: Receipt): 'verified' | 'unverified' {
  return chain.verdict.ok || receipt.seq < chain.verdict.firstBroken.seq ? 'verified' : 'unverified';
}

/** A table of receipts with their place on the chain. */
export function receiptTable(chain: ChainView, receipts: readonly Receipt[]): Html {
  if (receipts.length === 0) {
    return chain.verdict.ok
      ? html`<p class="note">No receipt on the chain names this transition yet.</p>`
      : html`<p class="note" data-receipts-unread>No receipt naming this transition could be read before the break at seq ${chain.verdict.firstBroken.seq}; the sink refuses to read past it.</p>`;
  }
  return html`<table data-receipts><thead><tr><th>Seq</th><th>Outcome</th><th>Kind</th><th>Operator</th><th>Time</th><th>Chain</th></tr></thead><tbody>${receipts.map(
    (receipt) => html`<tr><td>${receipt.seq}</td><td>${receipt.outcome}</td><td>${receipt.actionKind}</td>
<td>${receipt.operator === undefined ? '-' : `${receipt.operator.by}: ${receipt.operator.reason}`}</td>
<td>${receipt.timestamp}</td><td>${receiptStatus(chain, receipt)}</td></tr>`,
  )}</tbody></table>`;
}

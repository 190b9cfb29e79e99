/**
 * The frame of every dashboard page: head, navigation, the mode (scope, read-only) and the script.
 */
import type { TokenScope } from '../auth.js';
import { type Html, html } from './html.js';

/** What every page shows around its content. */
export interface PageFrame {
  readonly title: string;
  readonly scope: TokenScope | undefined;
  readonly readOnly: boolean;
  readonly ledgers: readonly string[];
}

/** A full page. */
export function layout(frame: PageFrame, content: Html): Html {
  const mode =
    frame.scope === undefined
      ? 'signed out'
      : `${frame.readOnly ? 'read-only' : frame.scope === 'act' ? 'read and act' : 'read only (token scope)'}`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · hyphae</title>
<link rel="stylesheet" href="/static/dashboard.css">
<script src="/static/dashboard.js" defer></script>
</head>
<body>
<header>
<span class="brand">hyphae</span>
<nav>${
    frame.scope === undefined
      ? ''
      : [
          html`<a href="/">Overview</a>`,
          frame.ledgers.map((name) => html`<a href="/transitions?ledger=${name}">Transitions (${name})</a>`),
          html`<a href="/pins">MCP pins</a>`,
          html`<a href="/receipts">Receipts</a>`,
        ]
  }</nav>
<span class="mode">${mode} <span id="live-status" class="live"></span></span>
</header>
<main>
<h1>${frame.title}</h1>
${content}
</main>
</body>
</html>`;
}

/** A badge for an outcome (stored or derived). */
export function outcomeBadge(outcome: string): Html {
  return html`<span class="badge o-${outcome}">${outcome}</span>`;
}

/** A time as ISO 8601 (UTC), or a dash. */
export function isoTime(ms: number | null | undefined): string {
  return ms === null || ms === undefined || Number.isNaN(ms) ? '-' : new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** A message box: `ok` (green) or `bad` (red). */
export function flash(kind: 'ok' | 'bad', message: string): Html {
  return html`<div class="flash ${kind}" role="${kind === 'bad' ? 'alert' : 'status'}">${message}</div>`;
}

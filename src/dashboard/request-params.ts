/**
 * The list page's URL parameters, checked: unknown outcomes and unreadable times are reported on
 * the page, not silently dropped into a wider query.
 */

import { FILTER_KINDS, FILTER_OUTCOMES } from '../ledger/operator/read-model.js';
import type { ListParams } from './queries.js';

function text(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name)?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** Read the list parameters; `error` names the first one that could not be used. */
export function parseListParams(
  query: URLSearchParams,
  ledgers: readonly string[],
): { readonly params: ListParams; readonly error?: string } {
  const errors: string[] = [];
  const outcomes = query.getAll('outcome').flatMap((value) => value.split(',').map((o) => o.trim().toUpperCase()));
  const known = outcomes.filter((outcome) => FILTER_OUTCOMES.includes(outcome));
  for (const outcome of outcomes) if (!known.includes(outcome)) errors.push(`Unknown outcome \`${outcome}\``);
  const time = (name: string): { text?: string; ms?: number } => {
    const value = text(query, name);
    if (value === undefined) return {};
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) {
      errors.push(`\`${name}\` must be an ISO 8601 time (like 2026-12-01T09:00Z), got \`${value}\``);
      return { text: value };
    }
    return { text: value, ms };
  };
  const kind = text(query, 'kind')?.toLowerCase();
  if (kind !== undefined && !(FILTER_KINDS as readonly string[]).includes(kind))
    errors.push(`Unknown kind \`${kind}\``);
  const from = time('from');
  const to = time('to');
  const optional: Record<string, string | number | undefined> = {
    tool: text(query, 'tool'),
    kind: kind !== undefined && (FILTER_KINDS as readonly string[]).includes(kind) ? kind : undefined,
    agent: text(query, 'agent'),
    thread: text(query, 'thread'),
    run: text(query, 'run'),
    text: text(query, 'q'),
    cursor: text(query, 'cursor'),
    from: from.ms,
    to: to.ms,
    fromText: from.text,
    toText: to.text,
  };
  const defined = Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined));
  const ledger = text(query, 'ledger') ?? ledgers[0] ?? '';
  return {
    params: { ledger, outcomes: known, ...defined } as ListParams,
    ...(errors.length === 0 ? {} : { error: errors.join('; ') }),
  };
}

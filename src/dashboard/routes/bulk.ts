/**
 * The bulk action routes: the impact preview of a filter's selection, and the run over exactly the
 * keys the preview showed.
 */
import type { Hono } from 'hono';
import { parseAction } from '../actions.js';
import { runBulk, selectForBulk } from '../bulk.js';
import { bulkPreviewContent, bulkResultsContent } from '../pages/bulk.js';
import { flash } from '../pages/layout.js';
import { parseListParams } from '../request-params.js';
import type { Env, RouteKit } from './kit.js';

/** Add the bulk action routes to `app`. */
export function bulkRoutes(app: Hono<Env>, kit: RouteKit): void {
  const { options, page, clock, limits } = kit;
  const names = options.ledgers.map((named) => named.name);

  app.post('/bulk/preview', async (c) => {
    const form = await kit.form(c);
    const refused = kit.refuseAct(c, form);
    if (refused !== undefined) return page(c, 'Refused', flash('bad', refused), 403);
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(form)) if (value !== undefined) query.set(name, value);
    const parsed = parseListParams(query, names);
    const named = options.ledgers.find((ledger) => ledger.name === parsed.params.ledger);
    if (named === undefined) return page(c, 'Bulk action', flash('bad', 'The config has no such ledger'), 404);
    if (parsed.error !== undefined) return page(c, 'Bulk action', flash('bad', parsed.error), 400);
    const action = parseAction(form);
    if (!action.ok) return page(c, 'Bulk action', flash('bad', action.message), 400);
    const now = clock.now();
    const selection = await selectForBulk(named, parsed.params, now, limits);
    const csrf = c.get('session')?.csrf ?? '';
    const content = bulkPreviewContent(parsed.params, action.value, selection, csrf, now, limits.bulkLimit);
    return page(c, `Bulk action (${named.name})`, content);
  });

  app.post('/bulk/act', async (c) => {
    const form = await kit.form(c);
    const refused = kit.refuseAct(c, form);
    if (refused !== undefined) return page(c, 'Refused', flash('bad', refused), 403);
    const named = options.ledgers.find((ledger) => ledger.name === form.ledger);
    if (named === undefined) return page(c, 'Bulk action', flash('bad', 'The config has no such ledger'), 404);
    const action = parseAction(form);
    if (!action.ok) return page(c, 'Bulk action', flash('bad', action.message), 400);
    if (form.confirm !== 'yes') return page(c, 'Bulk action', flash('bad', 'Confirm the action first'), 409);
    const keys = [...new Set((form.keys ?? '').split(',').map((key) => key.trim()))].filter((key) => key !== '');
    if (keys.length === 0) return page(c, 'Bulk action', flash('bad', 'No transition was selected'), 400);
    if (keys.length > limits.bulkLimit) {
      const message = `One bulk action takes at most ${limits.bulkLimit} transitions, got ${keys.length}`;
      return page(c, 'Bulk action', flash('bad', message), 400);
    }
    const results = await runBulk(named, keys, action.value, options.onError);
    return page(c, `Bulk action (${named.name})`, bulkResultsContent(named.name, action.value, results, clock.now()));
  });
}

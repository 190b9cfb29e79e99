/**
 * The MCP pins routes: the list, the review's confirm step, and the review itself.
 */
import type { Context, Hono } from 'hono';
import { flash } from '../pages/layout.js';
import { pinConfirmContent, pinsContent } from '../pages/pins.js';
import { parsePinReview, readPins, runPinReview } from '../pins.js';
import type { Env, RouteKit } from './kit.js';

/** Add the pins pages to `app`. */
export function pinRoutes(app: Hono<Env>, kit: RouteKit): void {
  const { options, page } = kit;
  const reviewerOf = options.pins;
  const unavailable = flash(
    'bad',
    'This dashboard was started without a pin store: it has no MCP tool pins to show (`hyphae dashboard` has one)',
  );

  app.get('/pins', async (c) => {
    if (reviewerOf === undefined) return page(c, 'MCP tool pins', unavailable, 404);
    const done = c.req.query('done');
    const all = await readPins(options.ledgers, reviewerOf);
    const content = pinsContent(
      all,
      c.get('session')?.csrf,
      kit.noActions(c),
      done === undefined ? undefined : flash('ok', done),
    );
    return page(c, 'MCP tool pins', content);
  });

  async function checked(c: Context<Env>) {
    const form = await kit.form(c);
    const refused = kit.refuseAct(c, form);
    if (refused !== undefined) return { response: await page(c, 'Refused', flash('bad', refused), 403) };
    if (reviewerOf === undefined) return { response: await page(c, 'MCP tool pins', unavailable, 404) };
    const parsed = parsePinReview(form);
    if (!parsed.ok) return { response: await page(c, 'MCP tool pins', flash('bad', parsed.message), 400) };
    const named = options.ledgers.find((ledger) => ledger.name === parsed.value.ledger);
    if (named === undefined) {
      return { response: await page(c, 'MCP tool pins', flash('bad', `No ledger \`${parsed.value.ledger}\``), 404) };
    }
    return { form, request: parsed.value, named, reviewerOf };
  }

  app.post('/pins/confirm', async (c) => {
    const result = await checked(c);
    if ('response' in result) return result.response;
    return page(c, 'Confirm', pinConfirmContent(result.request, c.get('session')?.csrf ?? ''));
  });

  app.post('/pins/act', async (c) => {
    const result = await checked(c);
    if ('response' in result) return result.response;
    const { form, request, named, reviewerOf: reviewer } = result;
    if (form.confirm !== 'yes') return page(c, 'MCP tool pins', flash('bad', 'Confirm the review first'), 409);
    const outcome = await runPinReview(named, request, reviewer);
    if (!outcome.ok) {
      const all = await readPins(options.ledgers, reviewer);
      const message = flash('bad', `Refused by the pin store: ${outcome.message}`);
      return page(c, 'MCP tool pins', pinsContent(all, c.get('session')?.csrf, kit.noActions(c), message), 409);
    }
    const verb = request.action === 'approve' ? 'approved' : 'rejected';
    const done = `Done: the new definition of \`${request.tool}\` of \`${request.server}\` ${verb} by ${request.by}`;
    return c.redirect(`/pins?done=${encodeURIComponent(done)}`, 303);
  });
}

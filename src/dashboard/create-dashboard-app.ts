/**
 * The dashboard as a hono app: server-rendered pages over the config's ledgers, behind scoped
 * tokens, with a CSRF secret on every state-changing form and strict security headers. The
 * headers, the origin check and the bearer check are hono's own middleware.
 */

import type { Context, MiddlewareHandler } from 'hono';
import { Hono } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import { secureHeaders } from 'hono/secure-headers';
import { systemClock } from '../core/clock.js';
import { GuardError } from '../errors.js';
import { type ActionForm, parseAction, runAction } from './actions.js';
import { createSessionStore, hostName, sameSecret, scopeOf } from './auth.js';
import type { DashboardOptions } from './dashboard-options.js';
import { confirmContent } from './pages/confirm.js';
import { type Html, html } from './pages/html.js';
import { flash, layout } from './pages/layout.js';
import { listContent } from './pages/list.js';
import { loginContent } from './pages/login.js';
import { overviewContent } from './pages/overview.js';
import { chainVerdict } from './pages/receipts.js';
import { transitionContent } from './pages/transition.js';
import { DEFAULT_LIMITS, findRecord, listPage, type QueryLimits, summarize } from './queries.js';
import { createReceiptChain } from './receipt-chain.js';
import { parseListParams } from './request-params.js';
import { bulkRoutes } from './routes/bulk.js';
import type { Env, PageStatus, RouteKit } from './routes/kit.js';
import { pinRoutes } from './routes/pins.js';
import { DASHBOARD_CSS, DASHBOARD_JS } from './static.js';

/** The cookie that carries a browser session. */
export const SESSION_COOKIE = 'hyphae_session';

/** The security headers of every answer (hono's defaults, with these changes). */
const SECURITY_HEADERS = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'"],
    connectSrc: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
  },
  // `same-origin`, not `no-referrer`: under `no-referrer` browsers post forms with `Origin: null`.
  referrerPolicy: 'same-origin',
  xFrameOptions: 'DENY',
  // The dashboard does not own its host's TLS policy: HSTS (with includeSubDomains) would bind
  // every subdomain of that host to HTTPS, and a loopback dashboard is plain HTTP.
  strictTransportSecurity: false,
});

/**
 * A browser's form post must come from the dashboard's own origin (`Origin` or `Sec-Fetch-Site`);
 * one that shows neither is refused too (CSRF, login CSRF). A request with an `Authorization`
 * header is not checked: a page on another site cannot add that header without a preflight, which
 * the dashboard never answers.
 */
function sameOriginForms(): MiddlewareHandler {
  const check = csrf({
    origin: (origin, c) => {
      const host = c.req.header('host') ?? '';
      return origin === `http://${host}` || origin === `https://${host}`;
    },
  });
  return async (c, next) => {
    if (c.req.header('authorization') !== undefined) return next();
    try {
      await check(c, next);
    } catch (error) {
      if (!(error instanceof HTTPException) || error.status !== 403) throw error;
      const origin = c.req.header('origin');
      return c.text(
        origin === undefined
          ? 'Cross-origin request refused (no `Origin` header)'
          : `Cross-origin request refused (origin \`${origin}\`)`,
        403,
      );
    }
  };
}

/**
 * Build the dashboard app; serve it with `@hono/node-server`, or call `app.request` in tests.
 *
 * @example
 * const app = createDashboardApp({ ledgers: [{ name: 'action', ledger }], allowAnonymous: true });
 * const response = await app.request('/');
 */
export function createDashboardApp(options: DashboardOptions): Hono<Env> {
  const clock = options.clock ?? systemClock;
  const limits: QueryLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const tokens = options.tokens ?? [];
  const readOnly = options.readOnly === true;
  const sessions = createSessionStore();
  const chain = options.receipts === undefined ? undefined : createReceiptChain(options.receipts, clock);
  const ledgerNames = options.ledgers.map((named) => named.name);
  const app = new Hono<Env>();

  const page = (c: Context<Env>, title: string, content: Html, status: PageStatus = 200) =>
    c.html(layout({ title, scope: c.get('scope'), readOnly, ledgers: ledgerNames }, content).toString(), status);

  app.use('*', SECURITY_HEADERS);
  app.use('*', async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
  });

  app.use('*', async (c, next) => {
    const host = c.req.header('host') ?? '';
    if (options.allowedHosts !== undefined && !options.allowedHosts.includes(hostName(host))) {
      return c.text(`Host \`${host}\` is not this dashboard's address`, 421);
    }
    return next();
  });
  app.use('*', sameOriginForms());

  // Forms are small; a larger body is refused before it is read.
  app.use('*', bodyLimit({ maxSize: 64 * 1024, onError: (c) => c.text('Request body too large', 413) }));

  app.get('/static/dashboard.css', (c) => c.body(DASHBOARD_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8' }));
  app.get('/static/dashboard.js', (c) =>
    c.body(DASHBOARD_JS, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }),
  );

  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.get('/login', (c) => page(c, 'Sign in', loginContent(undefined)));
  app.post('/login', async (c) => {
    const body = await c.req.parseBody();
    const scope = typeof body.token === 'string' ? scopeOf(tokens, body.token) : undefined;
    if (scope === undefined) return page(c, 'Sign in', loginContent('That token is not accepted'), 403);
    const session = sessions.open(scope);
    setCookie(c, SESSION_COOKIE, session.id, { httpOnly: true, sameSite: 'Strict', path: '/' });
    return c.redirect('/', 303);
  });

  // A bearer token grants its scope; one not accepted is refused (401), even where anyone may look.
  // (hono types the middleware for any app; this one runs in the dashboard's, so its variables are there)
  const bearer = bearerAuth({
    verifyToken: (token, c) => {
      const scope = scopeOf(tokens, token);
      if (scope !== undefined) {
        (c as unknown as Context<Env>).set('session', undefined);
        (c as unknown as Context<Env>).set('scope', scope);
      }
      return scope !== undefined;
    },
    invalidTokenMessage: 'That bearer token is not accepted',
    invalidAuthenticationHeaderMessage: 'The Authorization header is not `Bearer TOKEN`',
  }) as unknown as MiddlewareHandler<Env>;

  // Who is asking: a session cookie, a bearer token, or (loopback only) anyone, with a fresh session.
  app.use('*', async (c, next) => {
    const cookie = getCookie(c, SESSION_COOKIE);
    const session = cookie === undefined ? undefined : sessions.get(cookie);
    if (session !== undefined) {
      c.set('session', session);
      c.set('scope', session.scope);
      return next();
    }
    if (c.req.header('authorization') !== undefined) return bearer(c, next);
    if (options.allowAnonymous === true) {
      const opened = sessions.open('act');
      setCookie(c, SESSION_COOKIE, opened.id, { httpOnly: true, sameSite: 'Strict', path: '/' });
      c.set('session', opened);
      c.set('scope', opened.scope);
      return next();
    }
    if (c.req.method === 'GET') return c.redirect('/login', 303);
    return c.text('A token is required (a session, or `Authorization: Bearer TOKEN`)', 401);
  });

  /** Why this request may not act, or undefined; checks scope, read-only and the CSRF secret. */
  function refuseAct(c: Context<Env>, form: ActionForm): string | undefined {
    if (readOnly) return 'This dashboard is read-only: every action is refused';
    if (c.get('scope') !== 'act') return 'Your token may read but not act';
    const session = c.get('session');
    // A bearer token is not ambient (a browser never attaches it by itself), so it needs no CSRF secret.
    if (session === undefined) return c.req.header('authorization') === undefined ? 'No session' : undefined;
    if (form._csrf === undefined || !sameSecret(session.csrf, form._csrf)) {
      return 'The form is stale or was not sent by this dashboard (CSRF check failed); reload the page';
    }
    return undefined;
  }

  const noActions = (c: Context<Env>): string | undefined =>
    readOnly
      ? 'Read-only: actions are refused.'
      : c.get('scope') === 'act'
        ? undefined
        : 'Your token may read but not act.';

  app.get('/', async (c) => {
    const now = clock.now();
    const summaries = await Promise.all(options.ledgers.map((named) => summarize(named, now, limits)));
    return page(c, 'Overview', overviewContent(summaries, await chain?.view(), now, limits));
  });

  app.get('/transitions', async (c) => {
    const parsed = parseListParams(new URL(c.req.url).searchParams, ledgerNames);
    const named = options.ledgers.find((l) => l.name === parsed.params.ledger);
    if (named === undefined) return page(c, 'Transitions', flash('bad', 'The config has no ledger'), 404);
    const now = clock.now();
    const result = await listPage(named, parsed.params, now, limits);
    const status = parsed.error === undefined ? 200 : 400;
    const csrf = c.get('session')?.csrf;
    const bulk =
      noActions(c) === undefined && csrf !== undefined && result.records.length > 0
        ? { csrf, bound: limits.bulkLimit }
        : undefined;
    return page(c, `Transitions (${named.name})`, listContent(parsed.params, result, now, parsed.error, bulk), status);
  });

  async function transitionPage(c: Context<Env>, key: string, message?: Html, status: 200 | 409 = 200) {
    const found = await findRecord(options.ledgers, key);
    if (found === undefined) return page(c, 'Transition', flash('bad', `No transition \`${key}\``), 404);
    const view = await chain?.view();
    const content = transitionContent(
      {
        ledger: found.named.name,
        record: found.record,
        chain: view,
        receipts: view?.byKey.get(key) ?? [],
        csrf: c.get('session')?.csrf,
        noActions: noActions(c),
        now: clock.now(),
      },
      message,
    );
    return page(c, `Transition · ${found.record.tool}`, content, status);
  }

  app.get('/t/:key', (c) => {
    const done = c.req.query('done');
    return transitionPage(c, c.req.param('key'), done === undefined ? undefined : flash('ok', done));
  });

  async function actionForm(c: Context<Env>): Promise<ActionForm> {
    const body = await c.req.parseBody();
    const form: Record<string, string> = {};
    for (const [name, value] of Object.entries(body)) if (typeof value === 'string') form[name] = value;
    return form;
  }

  /** The posted action on `key` with its form, or the page refusing it (not allowed, or not well-formed). */
  async function postedAction(c: Context<Env>, key: string) {
    const form = await actionForm(c);
    const refused = refuseAct(c, form);
    if (refused !== undefined) return page(c, 'Refused', flash('bad', refused), 403);
    const parsed = parseAction(form);
    if (!parsed.ok) return transitionPage(c, key, flash('bad', parsed.message), 409);
    return { form, action: parsed.value };
  }

  app.post('/t/:key/confirm', async (c) => {
    const key = c.req.param('key');
    const posted = await postedAction(c, key);
    if (posted instanceof Response) return posted;
    const found = await findRecord(options.ledgers, key);
    if (found === undefined) return page(c, 'Transition', flash('bad', `No transition \`${key}\``), 404);
    const csrf = c.get('session')?.csrf ?? '';
    return page(c, 'Confirm', confirmContent(found.record, posted.action, csrf, clock.now()));
  });

  app.post('/t/:key/act', async (c) => {
    const key = c.req.param('key');
    const posted = await postedAction(c, key);
    if (posted instanceof Response) return posted;
    const { form, action } = posted;
    if (form.confirm !== 'yes') return transitionPage(c, key, flash('bad', 'Confirm the action first'), 409);
    // The action finds the ledger that holds the key and reads the record once, itself.
    const outcome = await runAction(options.ledgers, key, action);
    if (!outcome.ok && outcome.code === 'ledger_not_found') {
      return page(c, 'Transition', flash('bad', `No transition \`${key}\``), 404);
    }
    if (!outcome.ok) return transitionPage(c, key, flash('bad', `Refused by the ledger: ${outcome.message}`), 409);
    const done = `Done: ${action.kind.replaceAll('_', ' ')} by ${action.by}; now ${outcome.record.outcome}`;
    return c.redirect(`/t/${encodeURIComponent(key)}?done=${encodeURIComponent(done)}`, 303);
  });

  const kit: RouteKit = { options, clock, limits, page, form: actionForm, refuseAct, noActions };
  pinRoutes(app, kit);
  bulkRoutes(app, kit);

  app.get('/receipts', async (c) => {
    const view = await chain?.view();
    return page(
      c,
      'Receipts',
      html`<section class="card" id="chain" data-live>${
        view === undefined ? html`<p class="note">The config has no receipts.</p>` : chainVerdict(view)
      }</section>`,
    );
  });

  app.onError((error, c) => {
    // A refusal of hono's middleware (a bearer token not accepted) answers as that middleware says.
    if (error instanceof HTTPException) return error.getResponse();
    options.onError?.(error);
    const message = error instanceof GuardError ? error.message : 'The dashboard failed to answer';
    return page(c, 'Error', flash('bad', message), 503);
  });

  return app;
}

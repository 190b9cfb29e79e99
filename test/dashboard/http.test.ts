import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLedger, createMemoryStorage, decisionDigest } from '../../src/index.js';
import { createJsonlReceiptSink } from '../../src/storage/jsonl/jsonl-sink.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { clientOf, dashboardOf, type Seeded, seedLedger } from './fixture.js';

const dirs: string[] = [];
const opened: Seeded[] = [];
afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((seeded) => seeded.ledger.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
});

async function seeded(): Promise<Seeded> {
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-dashboard-'));
  dirs.push(dir);
  const result = await seedLedger(createSqliteStorage({ path: join(dir, 'ledger.db') }));
  opened.push(result);
  return result;
}

const TOKEN = 'act-token-'.padEnd(32, 'x');
const READ_TOKEN = 'read-token-'.padEnd(32, 'y');

describe('the dashboard over a SQLite ledger', () => {
  it('sends the security headers and the one static script', async () => {
    const app = dashboardOf(await seeded());
    const page = await clientOf(app).get('/');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(page.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    expect(page.headers.get('cache-control')).toBe('no-store');
    // The dashboard does not bind its host's subdomains to HTTPS.
    expect(page.headers.get('strict-transport-security')).toBeNull();
    const body = await page.text();
    expect(body).not.toMatch(/<script>(?!<\/script>)/);
    expect(body).toContain('<script src="/static/dashboard.js" defer></script>');
    const script = await clientOf(app).get('/static/dashboard.js');
    expect(script.headers.get('content-type')).toContain('text/javascript');
  });

  it('shows what is stuck (UNKNOWN, BLOCKED, expired) but not a held claim or a completed call', async () => {
    const s = await seeded();
    const body = await (await clientOf(dashboardOf(s)).get('/')).text();
    const stuck = body.slice(body.indexOf('Stuck:'), body.indexOf('By outcome'));
    for (const record of [s.unknown, s.blocked, s.expired]) expect(stuck).toContain(record.key.slice(0, 16));
    for (const record of [s.held, s.completed]) expect(stuck).not.toContain(record.key.slice(0, 16));
    expect(stuck).toContain('<span data-count="stuck">3</span>');
    expect(body).toMatch(/<b>1<\/b>EXPIRED/);
    expect(body).toContain('all 5 of them');
    expect(body).toContain('Chain verified: 2 receipts');
  });

  it('filters by outcome and tool in the store, and by agent and free text within the fetched pages', async () => {
    const s = await seeded();
    const client = clientOf(dashboardOf(s));
    const keysOf = (text: string) => [...text.matchAll(/data-key="([0-9a-f]+)"/g)].map((m) => m[1]);
    const expired = await (await client.get('/transitions?ledger=action&outcome=EXPIRED')).text();
    expect(keysOf(expired)).toEqual([s.expired.key]);
    expect(expired).toContain('filtered here');
    const tool = await (await client.get('/transitions?tool=send_payment')).text();
    expect(keysOf(tool)).toEqual([s.unknown.key]);
    expect(tool).toContain("filtered by the store's own list query");
    const byRef = await (await client.get('/transitions?q=PI_42')).text();
    expect(keysOf(byRef)).toEqual([s.unknown.key]);
    const byAgent = await (await client.get('/transitions?agent=ship-agent')).text();
    expect(keysOf(byAgent)).toEqual([s.expired.key]);
    const bad = await client.get('/transitions?outcome=DONE&from=yesterday');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('Unknown outcome `DONE`');
  });

  it('pages with the store cursor, newest first, never repeating a record', async () => {
    const s = await seeded();
    const client = clientOf(dashboardOf(s, { limits: { pageSize: 2 } }));
    const seen: string[] = [];
    let path: string | undefined = '/transitions?ledger=action';
    while (path !== undefined) {
      const text: string = await (await client.get(path)).text();
      seen.push(...[...text.matchAll(/data-key="([0-9a-f]+)"/g)].map((m) => m[1] as string));
      const next: string | undefined = /<a rel="next" href="([^"]+)"/.exec(text)?.[1];
      path = next?.replaceAll('&amp;', '&');
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
  });

  it('shows a transition with its timeline and its receipt, chain verified', async () => {
    const s = await seeded();
    const body = await (await clientOf(dashboardOf(s)).get(`/t/${s.unknown.key}`)).text();
    expect(body).toContain('pi_42');
    expect(body).toContain('maybe_crossed');
    expect(body).toContain('Receipt #');
    expect(body).toContain('UNKNOWN');
    expect(body).toContain('Chain verified');
    expect(body).toMatch(/<td>\d+<\/td><td>UNKNOWN<\/td><td>tool<\/td>/);
  });

  it('shows the decision of the attempt and its verdicts on the timeline, and the effect state', async () => {
    const s = await seeded();
    const client = clientOf(dashboardOf(s));
    const body = await (await client.get(`/t/${s.unknown.key}`)).text();
    const older = await (await client.get(`/t/${s.blocked.key}`)).text();

    expect(body).toContain('<span class="effect" data-effect="UNKNOWN">UNKNOWN</span>');
    expect(body).toMatch(/<li class="k-decision">.*<strong>Decision: allowed<\/strong>/s);
    const verdicts = [...body.matchAll(/<li data-check="([^"]+)" data-verdict="([^"]+)">/g)].map(
      (m) => `${m[2]} ${m[1]}`,
    );
    expect(verdicts).toEqual(['allow fuses', 'allow approval', 'allow ledger']);
    expect(body).toContain('approved by ada');
    // The outcome receipt names the digest of the decision its attempt ran under.
    const digest = decisionDigest(s.unknown.decision as NonNullable<typeof s.unknown.decision>).slice(0, 16);
    expect(body).toContain(`digest \`${digest}\``);
    expect(body).toMatch(
      new RegExp(
        `Receipt #\\d+: UNKNOWN</strong><br><span class="note">tool receipt, key \`k1\`, decision \`${digest}\``,
      ),
    );
    // The decision comes right after the claim it was written with.
    expect(body.indexOf('Decision: allowed')).toBeGreaterThan(body.indexOf('<strong>Claimed</strong>'));
    expect(body.indexOf('Decision: allowed')).toBeLessThan(body.indexOf('<strong>UNKNOWN</strong>'));
    // A record written before the decision protocol says it has none.
    expect(older).toContain('none recorded (written before the decision protocol)');
    expect(older).toContain('data-effect="ABORTED"');
    expect(older).not.toContain('k-decision');
  });

  it('releases as not executed after a confirm step that says the tool will run once more, with a receipt', async () => {
    const s = await seeded();
    const client = clientOf(dashboardOf(s));
    await client.get(`/t/${s.unknown.key}`);
    const form = {
      _csrf: client.csrf(),
      action: 'release_not_executed',
      by: 'ada',
      reason: 'provider shows no charge',
    };
    const confirm = await client.post(`/t/${s.unknown.key}/confirm`, form);
    const confirmText = await confirm.text();
    expect(confirmText).toContain('The tool will run once more');
    // The confirm step changes nothing.
    expect((await s.ledger.get(s.unknown.key))?.operatorResolution).toBeNull();
    const done = await client.post(`/t/${s.unknown.key}/act`, { ...form, _csrf: client.csrf(), confirm: 'yes' });
    expect(done.status).toBe(303);
    const record = await s.ledger.get(s.unknown.key);
    expect(record?.operatorResolution).toMatchObject({
      verified: 'not_executed',
      by: 'ada',
      reason: 'provider shows no charge',
    });
    const page = await (await client.get(done.headers.get('location') as string)).text();
    expect(page).toContain('Done: release not executed by ada');
    expect(page).toContain('<td>NOT_EXECUTED</td><td>release</td>');
    expect(page).toContain('ada: provider shows no charge');
    expect(page).toContain('Chain verified: 3 receipts');
  });

  it('refuses a release the ledger refuses, with its message, and changes nothing', async () => {
    const s = await seeded();
    const client = clientOf(dashboardOf(s));
    await client.get(`/t/${s.held.key}`);
    const form = {
      _csrf: client.csrf(),
      action: 'release_not_executed',
      by: 'ada',
      reason: 'looks stuck',
      confirm: 'yes',
    };
    const refused = await client.post(`/t/${s.held.key}/act`, form);
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('a lease is held by `host-b:22:bbbb#3`');
    expect((await s.ledger.get(s.held.key))?.version).toBe(s.held.version);
    const again = await client.post(`/t/${s.completed.key}/act`, { ...form, _csrf: client.csrf() });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('Refused by the ledger');
  });

  it('marks a dead worker so its lease ends now', async () => {
    const s = await seeded();
    const client = clientOf(dashboardOf(s));
    await client.get(`/t/${s.held.key}`);
    const base = { _csrf: client.csrf(), action: 'mark_dead', by: 'ada', reason: 'host b was terminated' };
    // The held claim's heartbeat is fresh: refused without the override.
    expect((await client.post(`/t/${s.held.key}/act`, { ...base, confirm: 'yes' })).status).toBe(409);
    expect((await s.ledger.get(s.held.key))?.workerDeath).toBeUndefined();
    const form = { ...base, override_heartbeat: 'yes' };
    expect(await (await client.post(`/t/${s.held.key}/confirm`, form)).text()).toContain('ends now');
    expect((await client.post(`/t/${s.held.key}/act`, { ...form, confirm: 'yes' })).status).toBe(303);
    const record = await s.ledger.get(s.held.key);
    expect(record?.error?.message).toContain('marked dead by ada: host b was terminated');
    expect(record?.leaseUntil).toBeLessThanOrEqual(Date.now());
    expect(record?.workerDeath).toMatchObject({ by: 'ada', overrideHeartbeat: true });
  });

  it('requires the actor, the reason and the confirm step', async () => {
    const s = await seeded();
    const client = clientOf(dashboardOf(s));
    await client.get(`/t/${s.unknown.key}`);
    const base = { _csrf: client.csrf(), action: 'release_not_executed', by: 'ada', reason: 'checked' };
    expect(
      await (await client.post(`/t/${s.unknown.key}/act`, { ...base, reason: ' ', confirm: 'yes' })).text(),
    ).toContain('`reason` is required (why)');
    expect(await (await client.post(`/t/${s.unknown.key}/act`, { ...base, by: '' })).text()).toContain(
      '`by` is required (who acts)',
    );
    // The ledger's own check: a release as not executed carries no result.
    const withResult = await client.post(`/t/${s.unknown.key}/act`, { ...base, result: '{"id":1}', confirm: 'yes' });
    expect(withResult.status).toBe(409);
    expect(await withResult.text()).toContain('`result` goes only with');
    expect(await (await client.post(`/t/${s.unknown.key}/act`, base)).text()).toContain('Confirm the action first');
    expect((await s.ledger.get(s.unknown.key))?.operatorResolution).toBeNull();
  });

  it('refuses a state change without the session CSRF secret or from another origin', async () => {
    const s = await seeded();
    const client = clientOf(dashboardOf(s));
    await client.get(`/t/${s.unknown.key}`);
    const form = { action: 'release_not_executed', by: 'ada', reason: 'x', confirm: 'yes' };
    const missing = await client.post(`/t/${s.unknown.key}/act`, form);
    expect(missing.status).toBe(403);
    expect(await missing.text()).toContain('CSRF check failed');
    const forged = await client.post(
      `/t/${s.unknown.key}/act`,
      { ...form, _csrf: client.csrf() },
      { origin: 'http://evil.test' },
    );
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('origin `http://evil.test`');
    // A post naming no origin at all is refused too, unless the browser says it is same-origin.
    const unnamed = await client.post(`/t/${s.unknown.key}/act`, { ...form, _csrf: client.csrf() }, { origin: '' });
    expect(unnamed.status).toBe(403);
    const crossSite = await client.post(
      `/t/${s.unknown.key}/act`,
      { ...form, _csrf: client.csrf() },
      { origin: '', 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.status).toBe(403);
    expect((await s.ledger.get(s.unknown.key))?.operatorResolution).toBeNull();
    const sameSite = await client.post(
      `/t/${s.unknown.key}/act`,
      { ...form, _csrf: client.csrf() },
      { origin: '', 'sec-fetch-site': 'same-origin' },
    );
    expect(sameSite.status).toBe(303);
    expect((await s.ledger.get(s.unknown.key))?.operatorResolution?.by).toBe('ada');
    const huge = await client.post(`/t/${s.unknown.key}/act`, {
      ...form,
      _csrf: client.csrf(),
      reason: 'x'.repeat(100_000),
    });
    expect(huge.status).toBe(413);
  });

  it('refuses every action in read-only mode', async () => {
    const s = await seeded();
    const client = clientOf(dashboardOf(s, { readOnly: true }));
    const page = await (await client.get(`/t/${s.unknown.key}`)).text();
    expect(page).toContain('Read-only: actions are refused.');
    expect(page).not.toContain('name="_csrf"');
    const refused = await client.post(`/t/${s.unknown.key}/act`, {
      action: 'release_not_executed',
      by: 'ada',
      reason: 'x',
      confirm: 'yes',
    });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('read-only');
  });

  it('refuses a request without a token, and gives each token its scope', async () => {
    const s = await seeded();
    const app = dashboardOf(s, {
      allowAnonymous: false,
      tokens: [
        { token: TOKEN, scope: 'act' },
        { token: READ_TOKEN, scope: 'read' },
      ],
    });
    const anonymous = clientOf(app);
    expect((await anonymous.get('/')).headers.get('location')).toBe('/login');
    const wrong = await anonymous.get('/t/x', { authorization: 'Bearer wrong-token-wrong-token-123' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect((await anonymous.get('/', { authorization: `Basic ${TOKEN}` })).status).toBe(400);
    expect((await anonymous.post('/login', { token: 'not-it' })).status).toBe(403);
    expect((await anonymous.post(`/t/${s.unknown.key}/act`, { action: 'mark_dead' })).status).toBe(401);

    const reader = clientOf(app);
    expect((await reader.post('/login', { token: READ_TOKEN })).status).toBe(303);
    expect((await reader.get('/')).status).toBe(200);
    const readPage = await (await reader.get(`/t/${s.unknown.key}`)).text();
    expect(readPage).toContain('Your token may read but not act.');
    const refused = await reader.post(`/t/${s.unknown.key}/act`, {
      action: 'release_not_executed',
      by: 'a',
      reason: 'b',
      confirm: 'yes',
    });
    expect(refused.status).toBe(403);

    const actor = clientOf(app);
    await actor.post('/login', { token: TOKEN });
    await actor.get(`/t/${s.unknown.key}`);
    const form = { _csrf: actor.csrf(), action: 'release_not_executed', by: 'ada', reason: 'verified', confirm: 'yes' };
    expect((await actor.post(`/t/${s.unknown.key}/act`, form)).status).toBe(303);
    expect((await s.ledger.get(s.unknown.key))?.operatorResolution?.by).toBe('ada');

    // A script's bearer token is not ambient: its form needs neither an origin nor a CSRF secret.
    const script = clientOf(app);
    const confirm = await script.post(
      `/t/${s.blocked.key}/confirm`,
      { action: 'release_not_executed', by: 'ada', reason: 'checked' },
      { origin: '', authorization: `Bearer ${TOKEN}` },
    );
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toContain('name="confirm"');
  });

  it('shows where a tampered receipt chain breaks, on the receipts page and the transition page', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hyphae-dashboard-'));
    dirs.push(dir);
    const path = join(dir, 'receipts.jsonl');
    const s = await seedLedger(createSqliteStorage({ path: join(dir, 'ledger.db') }), createJsonlReceiptSink({ path }));
    opened.push(s);
    const client = clientOf(dashboardOf(s));
    expect(await (await client.get('/receipts')).text()).toContain('Chain verified: 2 receipts');
    const lines = readFileSync(path, 'utf8').split('\n');
    lines[0] = (lines[0] as string).replace('"outcome":"COMPLETED"', '"outcome":"FAILED_BEFORE_EFFECT"');
    writeFileSync(path, lines.join('\n'));
    // The sink now refuses its own tail (seq 2 no longer chains to seq 1): the dashboard reads it all.
    const page = await (await client.get('/receipts')).text();
    expect(page).toContain('Chain broken at seq 1');
    expect(page).toContain('tampered');
    const transition = await (await client.get(`/t/${s.unknown.key}`)).text();
    // The JSONL sink refuses to read past the break, so the receipt at seq 2 cannot be shown.
    expect(transition).toContain('could be read before the break at seq 1');
  });

  it('serves every ledger it is given: one list each, a transition found in whichever holds it', async () => {
    const action = await seeded();
    const tasks = createLedger({ storage: createMemoryStorage(), agentId: 'tasks', policyVersion: '1' });
    const task = makeTestRecord({
      kind: 'task',
      tool: 'process_invoice',
      outcome: 'UNKNOWN',
      owner: null,
      leaseUntil: null,
    });
    await tasks.storage.create(task);
    const client = clientOf(
      dashboardOf(action, {
        ledgers: [
          { name: 'action', ledger: action.ledger },
          { name: 'task', ledger: tasks },
        ],
      }),
    );
    const overview = await (await client.get('/')).text();
    expect(overview).toContain('Ledger <code>task</code>');
    expect(overview).toContain('Transitions (task)');
    const list = await (await client.get('/transitions?ledger=task')).text();
    expect([...list.matchAll(/data-key="([0-9a-f]+)"/g)].map((m) => m[1])).toEqual([task.key]);
    const page = await (await client.get(`/t/${task.key}`)).text();
    expect(page).toContain('process_invoice (task)');
    expect(page).toMatch(/<dt>Ledger<\/dt><dd>task<\/dd>/);
  });

  it('refuses a Host it does not serve (DNS rebinding)', async () => {
    const app = dashboardOf(await seeded(), { allowedHosts: ['127.0.0.1', 'localhost'] });
    expect((await clientOf(app).get('/', { host: 'rebind.evil.test:4500' })).status).toBe(421);
    expect((await clientOf(app).get('/', { host: 'localhost:4500' })).status).toBe(200);
  });
});

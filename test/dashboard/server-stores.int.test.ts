import { afterAll, describe, expect, it } from 'vitest';
import { type TestStore, testStores } from '../helpers/server-stores.js';
import { clientOf, dashboardOf, seedLedger } from './fixture.js';

const stores: TestStore[] = await testStores(['redis', 'postgres'], 'dashboard');
afterAll(async () => {
  await Promise.allSettled(stores.map((store) => store.dispose()));
});

const keysOf = (text: string) => [...text.matchAll(/data-key="([0-9a-f]+)"/g)].map((m) => m[1]);

describe.each(stores)('the dashboard over $name', (store) => {
  it.skipIf(store.skip)('lists, filters, opens, releases with a receipt and refuses a held lease', async () => {
    const s = await seedLedger(store.open());
    try {
      const client = clientOf(dashboardOf(s));
      const overview = await (await client.get('/')).text();
      expect(overview).toContain('<span data-count="stuck">3</span>');
      expect(overview).toContain(`(${store.name})`);

      expect(keysOf(await (await client.get('/transitions')).text())).toHaveLength(5);
      expect(keysOf(await (await client.get('/transitions?outcome=BLOCKED')).text())).toEqual([s.blocked.key]);
      expect(keysOf(await (await client.get('/transitions?tool=send_payment&q=pi_42')).text())).toEqual([
        s.unknown.key,
      ]);
      const from = new Date(s.blocked.updatedAt - 1).toISOString();
      const to = new Date(s.blocked.updatedAt + 1).toISOString();
      expect(keysOf(await (await client.get(`/transitions?from=${from}&to=${to}`)).text())).toEqual([s.blocked.key]);

      const page = await (await client.get(`/t/${s.unknown.key}`)).text();
      expect(page).toContain('pi_42');
      // The decision written with the claim, read back from this store's document.
      expect([...page.matchAll(/data-check="([^"]+)" data-verdict="allow"/g)].map((m) => m[1])).toEqual([
        'fuses',
        'approval',
        'ledger',
      ]);
      expect(page).toContain('data-effect="UNKNOWN"');
      const form = {
        _csrf: client.csrf(),
        action: 'release_completed',
        by: 'ada',
        reason: 'charged once',
        result: '{"id":"pi_42"}',
      };
      expect(await (await client.post(`/t/${s.unknown.key}/confirm`, form)).text()).toContain('becomes COMPLETED');
      const done = await client.post(`/t/${s.unknown.key}/act`, { ...form, confirm: 'yes' });
      expect(done.status).toBe(303);
      const released = await s.ledger.get(s.unknown.key);
      expect(released).toMatchObject({ outcome: 'COMPLETED', result: { id: 'pi_42' } });
      const after = await (await client.get(`/t/${s.unknown.key}`)).text();
      expect(after).toContain('<td>COMPLETED</td><td>release</td>');
      expect(after).toContain('Chain verified: 3 receipts');

      const refused = await client.post(`/t/${s.held.key}/act`, { ...form, confirm: 'yes' });
      expect(refused.status).toBe(409);
      expect(await refused.text()).toContain('a lease is held by');
      const again = await client.post(`/t/${s.unknown.key}/act`, { ...form, confirm: 'yes' });
      expect(again.status).toBe(409);
    } finally {
      await s.ledger.close();
    }
  });
});

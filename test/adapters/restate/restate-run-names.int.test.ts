/**
 * Two `ledgeredRun`s of one name in one invocation are two transitions, `<invocationId>#charge` and
 * `<invocationId>#charge#2`, and a retried attempt counts them the same way: the second run, which
 * threw after its charge, meets its own record (a hard block), not a fresh id that would charge
 * again. Stock, the retry charges the second order twice. Real `restate-server`, SQLite ledger.
 *
 * The Restate SDK needs Node.js 22 or later; on an older runtime this file only shows that.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hyphae } from '../../config/cli-runner.js';
import { yaml } from '../../config/helpers.js';
import { type RestateApp, restateRuns, type Settled, startRestateApp } from '../../fixtures/restate-app.js';

const SLOW = { timeout: 120_000 };
const ORDERS = [
  { orderId: 'ord_a', cents: 500 },
  { orderId: 'ord_b', cents: 700 },
];

async function chargeTwice(app: RestateApp, guarded: boolean): Promise<{ invocationId: string; settled: Settled }> {
  const service = await app.startService({ guarded, afterCharge: 'return' });
  await app.register();
  const invocationId = await app.sendTwice(ORDERS);
  const settled = await app.attach(invocationId);
  await service.kill();
  return { invocationId, settled };
}

if (!restateRuns) {
  describe('hyphae/restate on a runtime without Promise.withResolvers', () => {
    it(`does not apply on Node.js ${process.versions.node}: the Restate SDK needs Node.js 22 or later`, () => {
      expect(Number(process.versions.node.split('.')[0])).toBeLessThan(22);
    });
  });
} else {
  describe('hyphae/restate: two runs of one name in one invocation', () => {
    it('stock: the retry charges the second order again', SLOW, async () => {
      const app = await startRestateApp();
      try {
        const { settled } = await chargeTwice(app, false);

        expect(settled).toEqual({ ok: true, value: [{ chargeId: 1 }, { chargeId: 3 }] });
        expect(app.charges()).toBe(3);
      } finally {
        await app.close();
      }
    });

    it('guarded: two transitions, and the retried second run meets its own', SLOW, async () => {
      const app = await startRestateApp();
      try {
        const { invocationId, settled } = await chargeTwice(app, true);

        expect(settled.ok).toBe(false);
        expect(settled.ok ? '' : settled.message).toMatch(/^ledger_hard_block: /);
        expect(app.charges()).toBe(2);
        writeFileSync(
          join(app.dir, 'hyphae.yaml'),
          yaml(
            'transition: { agent_id: restate-app, policy_version: restate-app.1 }',
            `action_ledger: { storage: sqlite, path: ${JSON.stringify(app.ledgerPath)} }`,
          ),
        );
        const listed = hyphae(app.dir, ['transitions', 'list', '--json']);
        expect(listed.stderr).toBe('');
        const records = JSON.parse(listed.stdout) as { ticket: string; stuck: boolean }[];
        const byTicket = Object.fromEntries(records.map((record) => [record.ticket, record.stuck]));
        expect(byTicket).toEqual({ [`${invocationId}#charge`]: false, [`${invocationId}#charge#2`]: true });
      } finally {
        await app.close();
      }
    });
  });
}

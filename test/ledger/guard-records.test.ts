/**
 * The ledger's guard records on every store: policy records written by compare-and-set (of many
 * concurrent writers at one version exactly one wins), held calls that never run as transitions and
 * whose operator release is spent by exactly one of many concurrent calls, and a call's transition
 * found by its ticket.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryStorage, GuardRecordError, InvalidArgumentError } from '../../src/index.js';
import { everyStore, ledgerOn } from '../helpers/every-store.js';

const stores = await everyStore();

describe.each(stores)('guard records on %s', (_name, backend) => {
  afterAll(() => backend.dispose());

  it('writes a policy record by compare-and-set: one of eight writers at one version wins', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const { records } = ledgerOn(storage);
      const family = `policy.${randomUUID().slice(0, 8)}`;
      const key = `${family}:one`;
      const scope = { threadId: 'srv', runId: 'tool' };

      const first = await records.putPolicy({ key, tool: family, scope, body: { n: 0 } }, null);
      expect(first?.body).toEqual({ n: 0 });
      expect(await records.putPolicy({ key, tool: family, scope, body: { n: 9 } }, null)).toBeNull();

      const writers = await Promise.all(
        Array.from({ length: 8 }, (_, n) =>
          records.putPolicy({ key, tool: family, scope, body: { n: n + 1 } }, first?.version ?? 0),
        ),
      );
      const winners = writers.filter((written) => written !== null);
      expect(winners).toHaveLength(1);
      const stored = await records.getPolicy(key);
      expect(stored?.body).toEqual(winners[0]?.body);
      expect(stored?.version).toBe((first?.version ?? 0) + 1);
      expect(stored?.scope).toEqual(scope);

      const page = await records.listPolicies(family);
      expect(page.records.map((record) => record.key)).toEqual([key]);
      // Policy, not a transition: no receipt owed, nothing crossed.
      const raw = await storage.get(key);
      expect([raw?.kind, raw?.outcome, raw?.boundary, raw?.receiptRef]).toEqual([
        'task',
        'COMPLETED',
        'not_crossed',
        'none',
      ]);
    } finally {
      await cleanup();
    }
  });

  it('refuses to read a transition as a policy record, or as a held call', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const ledger = ledgerOn(storage);
      const tool = `lookup_${randomUUID().slice(0, 8)}`;
      const lookup = ledger.tool({ name: tool, sideEffectClass: 'idempotent_mutate' }, async () => 'ok');
      await lookup({ id: 1 }, { toolCallId: `call_${randomUUID()}` });
      const [transition] = (await ledger.list({ tool })).records;
      if (transition === undefined) throw new Error('the call left no transition');

      await expect(ledger.records.getPolicy(transition.key)).rejects.toBeInstanceOf(GuardRecordError);
      await expect(
        ledger.records.hold({ key: transition.key, tool, scope: {}, ticket: 't', code: 'held', message: 'held' }),
      ).rejects.toBeInstanceOf(GuardRecordError);
      await expect(ledger.records.approve(transition.key, { by: 'ada', reason: 'r' })).rejects.toBeInstanceOf(
        GuardRecordError,
      );
      expect((await ledger.get(transition.key))?.operatorResolution).toBeNull();
    } finally {
      await cleanup();
    }
  });

  it('holds a call once, and its release runs exactly one of eight concurrent calls', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const ledger = ledgerOn(storage);
      const key = `held:${randomUUID()}`;
      const input = { key, tool: 'mcp.approval', scope: { runId: 'r' }, ticket: 'intent', code: 'held', message: 'm' };

      const held = await Promise.all(Array.from({ length: 4 }, () => ledger.records.hold(input)));
      expect(new Set(held.map((record) => record.version))).toEqual(new Set([1]));
      expect([held[0]?.outcome, held[0]?.boundary, held[0]?.error?.code]).toEqual(['BLOCKED', 'not_crossed', 'held']);
      expect(await ledger.records.spend(held[0] as NonNullable<(typeof held)[0]>, 'call-0')).toBe('unreleased');

      await ledger.records.approve(key, { by: 'ada', reason: 'approved' });
      const spends = await Promise.all(
        Array.from({ length: 8 }, async (_, n) => {
          for (;;) {
            const spent = await ledger.records.spend(await ledger.records.hold(input), `call-${n}`);
            if (spent !== 'lost') return spent;
          }
        }),
      );
      expect(spends.filter((spent) => spent === 'mine')).toHaveLength(1);
      expect(spends.filter((spent) => spent === 'theirs')).toHaveLength(7);
      const winner = `call-${spends.indexOf('mine')}`;
      // The call that spent it may ask again (a retry) and is still let through; no one else is.
      const after = await ledger.records.hold(input);
      expect(after.ticket).toBe(winner);
      expect(await ledger.records.spend(after, winner)).toBe('mine');
      expect(await ledger.records.spend(after, 'call-late')).toBe('theirs');
    } finally {
      await cleanup();
    }
  });

  it('finds a call’s transition by its ticket in its scope', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const ledger = ledgerOn(storage);
      const tool = `charge_${randomUUID().slice(0, 8)}`;
      const charge = ledger.tool({ name: tool, sideEffectClass: 'payment' }, async () => 'charged');
      const ticket = `call_${randomUUID()}`;
      const scope = { threadId: 't', runId: 'r' };
      await charge({ amount: 1 }, { toolCallId: ticket, scope });

      expect((await ledger.records.byTicket(scope, ticket))?.tool).toBe(tool);
      expect(await ledger.records.byTicket({ threadId: 't', runId: 'other' }, ticket)).toBeNull();
    } finally {
      await cleanup();
    }
  });
});

describe('guard records refuse garbage with a typed error', () => {
  it('names the argument that is wrong, and writes nothing', async () => {
    const storage = createMemoryStorage();
    const { records } = ledgerOn(storage);
    const scope = { runId: 'r' };
    const cases: [string, () => Promise<unknown>][] = [
      ['input', () => records.putPolicy(null as never, null)],
      ['input.key', () => records.putPolicy({ key: 7, tool: 't', scope, body: 1 } as never, null)],
      ['version', () => records.putPolicy({ key: 'k', tool: 't', scope, body: 1 }, 1.5)],
      [
        'input.scope',
        () => records.hold({ key: 'k', tool: 't', scope: 3, ticket: 'x', code: 'c', message: 'm' } as never),
      ],
      [
        'ticket',
        () => records.spend({ key: 'k', version: 1, ticket: null, operatorResolution: null } as never, 5 as never),
      ],
      ['key', () => records.getPolicy(undefined as never)],
      ['tool', () => records.listPolicies({} as never)],
    ];
    for (const [argument, call] of cases) {
      const error = await call().then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error, argument).toBeInstanceOf(InvalidArgumentError);
      expect((error as Error).message, argument).toContain(`\`${argument}\``);
    }
    expect((await storage.list({})).records).toEqual([]);
  });
});

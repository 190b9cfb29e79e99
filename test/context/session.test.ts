import { describe, expect, it } from 'vitest';
import { protect } from '../../src/context/protect.js';
import { createSession, currentSession, withSession } from '../../src/context/session.js';
import { createManualClock } from '../../src/core/clock.js';

function balanceTool() {
  const balances = new Map<string, number>([['acct', 100]]);
  const calls: string[] = [];
  const read = protect(
    { name: 'balance', entityParam: 'account', ttlMs: 60_000, maxEntries: 10, clock: createManualClock() },
    async (args: { account: string }) => {
      calls.push(currentSession()?.id ?? 'none');
      return balances.get(args.account) ?? null;
    },
  );
  return { read, balances, calls };
}

describe('sessions', () => {
  it('isolates the caches of concurrent sessions', async () => {
    const { read, balances, calls } = balanceTool();
    const deferred = () => {
      let resolve: () => void = () => undefined;
      const promise = new Promise<void>((r) => (resolve = r));
      return { promise, resolve };
    };
    const aliceCached = deferred();
    const bobDone = deferred();

    // alice: read (miss, 100) ─┐                       ┌─ read again (hit: still her 100)
    // bob:                     └─ balance→50, read (miss: 50) ─┘
    const alice = withSession(
      async () => {
        const first = await read({ account: 'acct' });
        aliceCached.resolve();
        await bobDone.promise;
        return [first, await read({ account: 'acct' }), read.stats()] as const;
      },
      { sessionId: 'alice' },
    );
    const bob = withSession(
      async () => {
        await aliceCached.promise;
        balances.set('acct', 50);
        const value = await read({ account: 'acct' });
        bobDone.resolve();
        return [value, read.stats()] as const;
      },
      { sessionId: 'bob' },
    );
    const [[aliceFirst, aliceAgain, aliceStats], [bobValue, bobStats]] = await Promise.all([alice, bob]);

    expect([aliceFirst, aliceAgain]).toEqual([100, 100]);
    expect(bobValue).toBe(50);
    expect(calls).toEqual(['alice', 'bob']);
    expect(aliceStats).toMatchObject({ hits: 1, misses: 1 });
    expect(bobStats).toMatchObject({ hits: 0, misses: 1 });
  });

  it('does not share between two sessions that happen to use the same id label', async () => {
    const { read, calls } = balanceTool();

    await withSession(() => read({ account: 'acct' }), { sessionId: 'same' });
    await withSession(() => read({ account: 'acct' }), { sessionId: 'same' });

    expect(calls).toEqual(['same', 'same']);
  });

  it('re-enters an explicit session object and keeps its cache', async () => {
    const { read, calls } = balanceTool();
    const session = createSession({ sessionId: 'user-42' });

    await withSession(() => read({ account: 'acct' }), { session });
    await withSession(() => read({ account: 'acct' }), { session });

    expect(calls).toEqual(['user-42']);
    expect(withSession((s) => s, { session })).toBe(session);
  });

  it('outside a session, each wrapped tool owns its cache (never a process-wide one)', async () => {
    const first = balanceTool();
    const second = balanceTool();

    await first.read({ account: 'acct' });
    await first.read({ account: 'acct' });
    await second.read({ account: 'acct' });
    const insideSession = await withSession(async () => {
      await first.read({ account: 'acct' });
      return first.read.stats();
    });

    expect(first.calls).toEqual(['none', expect.any(String)]);
    expect(second.calls).toEqual(['none']);
    expect(first.read.stats()).toMatchObject({ hits: 1, misses: 1 });
    expect(insideSession).toMatchObject({ hits: 0, misses: 1 });
    expect(currentSession()).toBeUndefined();
  });

  it('nested sessions shadow the outer one; ids default to a UUID', () => {
    const ids = withSession((outer) => [outer.id, withSession((inner) => inner.id), currentSession()?.id], {
      sessionId: 'outer',
    });

    expect(ids[0]).toBe('outer');
    expect(ids[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(ids[2]).toBe('outer');
  });
});

import { describe, expect, it } from 'vitest';
import { CacheKeyError } from '../../src/context/errors.js';
import { DEFAULT_PROTECT_MAX_ENTRIES, protect, protectKey } from '../../src/context/protect.js';
import { createManualClock } from '../../src/core/clock.js';

interface Args {
  readonly id: string;
}

/** A tool that counts its calls and returns what `answer` says. */
function counted<R>(answer: (args: Args, call: number) => R | Promise<R>) {
  const calls: string[] = [];
  const fn = async (args: Args): Promise<R> => {
    calls.push(args.id);
    return answer(args, calls.length);
  };
  return { fn, calls };
}

describe('protect: hits, misses, TTL', () => {
  it('answers a repeat call from the cache and counts hits and misses', async () => {
    const clock = createManualClock(0);
    const tool = counted(({ id }) => `customer ${id}`);
    const getCustomer = protect(
      { name: 'get_customer', entityParam: 'id', ttlMs: 1000, maxEntries: 10, clock },
      tool.fn,
    );

    const first = await getCustomer({ id: 'c1' });
    const second = await getCustomer({ id: 'c1' });
    const other = await getCustomer({ id: 'c2' });

    expect([first, second, other]).toEqual(['customer c1', 'customer c1', 'customer c2']);
    expect(tool.calls).toEqual(['c1', 'c2']);
    expect(getCustomer.stats()).toMatchObject({ hits: 1, misses: 2, size: 2 });
  });

  it('re-fetches once now >= storedAt + ttl (the boundary is stale)', async () => {
    const clock = createManualClock(1_000);
    const tool = counted((_args, call) => call);
    const read = protect({ entityParam: 'id', ttlMs: 100, maxEntries: 10, clock }, tool.fn);

    await read({ id: 'a' });
    clock.advance(99);
    const fresh = await read({ id: 'a' });
    clock.advance(1);
    const refetched = await read({ id: 'a' });

    expect(fresh).toBe(1);
    expect(refetched).toBe(2);
  });

  it('caches null and undefined results', async () => {
    const tool = counted(({ id }) => (id === 'none' ? null : undefined));
    const read = protect({ entityParam: 'id', ttlMs: 1000, maxEntries: 10, clock: createManualClock() }, tool.fn);

    expect(await read({ id: 'none' })).toBeNull();
    expect(await read({ id: 'none' })).toBeNull();
    expect(await read({ id: 'undef' })).toBeUndefined();
    expect(await read({ id: 'undef' })).toBeUndefined();
    expect(tool.calls).toEqual(['none', 'undef']);
  });

  it('clears the key on an error and re-throws it, also over a stale entry', async () => {
    const clock = createManualClock(0);
    let fail = false;
    const tool = counted((_args, call) => {
      if (fail) throw new Error('upstream down');
      return call;
    });
    const read = protect({ entityParam: 'id', ttlMs: 10, maxEntries: 10, clock }, tool.fn);

    await read({ id: 'a' });
    clock.advance(10);
    fail = true;
    await expect(read({ id: 'a' })).rejects.toThrow('upstream down');
    fail = false;
    const after = await read({ id: 'a' });

    expect(after).toBe(3);
    expect(read.stats()).toMatchObject({ misses: 3, size: 1 });
  });
});

describe('protect: keys', () => {
  it('never confuses (tool x, entity a:b) with (tool x:a, entity b)', async () => {
    expect(protectKey('x', 'a:b')).not.toBe(protectKey('x:a', 'b'));
    const clock = createManualClock();
    const x = protect(
      { name: 'x', entityFrom: (a: { e: string }) => a.e, ttlMs: 1000, maxEntries: 5, clock },
      async () => 'from x',
    );
    const xa = protect(
      { name: 'x:a', entityFrom: (a: { e: string }) => a.e, ttlMs: 1000, maxEntries: 5, clock },
      async () => 'from x:a',
    );

    expect(await x({ e: 'a:b' })).toBe('from x');
    expect(await xa({ e: 'b' })).toBe('from x:a');
    expect(await x({ e: 'a:b' })).toBe('from x');
  });

  it('keys structured entities canonically (member order does not matter)', async () => {
    const tool = counted(() => 'row');
    const read = protect(
      {
        entityFrom: (a: Args & { filter: object }) => a.filter,
        ttlMs: 1000,
        maxEntries: 5,
        clock: createManualClock(),
      },
      tool.fn,
    );

    await read({ id: '1', filter: { a: 1, b: 2 } });
    await read({ id: '2', filter: { b: 2, a: 1 } });

    expect(tool.calls).toEqual(['1']);
  });

  it('refuses a missing or non-JSON entity with CacheKeyError', async () => {
    const read = protect(
      { name: 'read', entityParam: 'id', ttlMs: 1000, maxEntries: 5 },
      async (_a: Partial<Args>) => 1,
    );
    const weird = protect({ name: 'weird', entityFrom: () => Number.NaN, ttlMs: 1000, maxEntries: 5 }, async () => 1);

    await expect(read({})).rejects.toThrow(CacheKeyError);
    await expect(read({})).rejects.toThrow('Protected tool `read` cannot build a cache key: argument `id` is missing');
    await expect(weird({})).rejects.toMatchObject({ code: 'cache_key_invalid', cause: { code: 'non_json_value' } });
  });

  it('validates its options', () => {
    const fn = async (_a: Args) => 1;
    expect(() => protect({ name: 't', entityParam: 'id', ttlMs: 0, maxEntries: 1 }, fn)).toThrow(
      '`options.ttlMs` must be a positive number',
    );
    expect(() => protect({ name: 't', entityParam: 'id', ttlMs: 1, maxEntries: 0.5 }, fn)).toThrow(
      '`options.maxEntries` must be a positive integer',
    );
  });
});

describe('protect: concurrency, LRU, invalidation', () => {
  it('shares one in-flight call between concurrent identical misses', async () => {
    let release: (value: string) => void = () => undefined;
    const tool = counted(() => new Promise<string>((resolve) => (release = resolve)));
    const read = protect({ entityParam: 'id', ttlMs: 1000, maxEntries: 5, clock: createManualClock() }, tool.fn);

    const calls = [read({ id: 'a' }), read({ id: 'a' }), read({ id: 'a' })];
    await Promise.resolve();
    await Promise.resolve();
    release('shared');

    expect(await Promise.all(calls)).toEqual(['shared', 'shared', 'shared']);
    expect(tool.calls).toEqual(['a']);
    expect(read.stats()).toMatchObject({ misses: 1, coalesced: 2 });
  });

  it('shares an in-flight failure, then lets the next call retry', async () => {
    let attempt = 0;
    const read = protect(
      { entityParam: 'id', ttlMs: 1000, maxEntries: 5, clock: createManualClock() },
      async (_a: Args) => {
        attempt++;
        if (attempt === 1) throw new Error('flaky');
        return attempt;
      },
    );

    const results = await Promise.allSettled([read({ id: 'a' }), read({ id: 'a' })]);

    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await read({ id: 'a' })).toBe(2);
  });

  it('evicts the least recently used entry past maxEntries', async () => {
    const tool = counted(({ id }) => id);
    const read = protect({ entityParam: 'id', ttlMs: 1000, maxEntries: 2, clock: createManualClock() }, tool.fn);

    await read({ id: 'a' });
    await read({ id: 'b' });
    await read({ id: 'a' }); // a is now the most recent
    await read({ id: 'c' }); // evicts b
    await read({ id: 'a' });
    await read({ id: 'b' });

    expect(tool.calls).toEqual(['a', 'b', 'c', 'b']);
    expect(read.stats()).toMatchObject({ evictions: 2, size: 2 });
  });

  it('invalidate(entity) forgets one entity; clear() forgets all', async () => {
    const tool = counted(({ id }) => id);
    const read = protect({ entityParam: 'id', ttlMs: 1000, maxEntries: 5, clock: createManualClock() }, tool.fn);

    await read({ id: 'a' });
    await read({ id: 'b' });
    read.invalidate('a');
    await read({ id: 'a' });
    await read({ id: 'b' });
    read.clear();
    await read({ id: 'b' });

    expect(tool.calls).toEqual(['a', 'b', 'a', 'b']);
  });

  it('does not cache a result whose entity was invalidated while it was in flight', async () => {
    let release: (value: string) => void = () => undefined;
    let version = 0;
    const read = protect({ entityParam: 'id', ttlMs: 1000, maxEntries: 5, clock: createManualClock() }, (_a: Args) => {
      version++;
      return version === 1 ? new Promise<string>((resolve) => (release = resolve)) : Promise.resolve(`v${version}`);
    });

    const stale = read({ id: 'a' });
    await Promise.resolve();
    await Promise.resolve();
    read.invalidate('a');
    release('v1');

    expect(await stale).toBe('v1');
    expect(await read({ id: 'a' })).toBe('v2');
  });

  it('passes the extra arguments through to the tool', async () => {
    const read = protect(
      { entityParam: 'id', ttlMs: 1000, maxEntries: 5 },
      async (args: Args, options: { toolCallId: string }) => `${args.id}/${options.toolCallId}`,
    );

    expect(await read({ id: 'a' }, { toolCallId: 'call_1' })).toBe('a/call_1');
    expect(read.toolName).toBe('anonymous');
  });
});

describe('protect: selectors and defaults', () => {
  it('keys by the whole arguments with byArguments, never serving one result for other arguments', async () => {
    let calls = 0;
    const list = protect(
      { name: 'list_products', byArguments: true, ttlMs: 60_000 },
      async (args: { page: number }) => {
        calls += 1;
        return { page: args.page, call: calls };
      },
    );
    expect(await list({ page: 1 })).toEqual({ page: 1, call: 1 });
    expect(await list({ page: 1 })).toEqual({ page: 1, call: 1 });
    expect(await list({ page: 2 })).toEqual({ page: 2, call: 2 });
    expect(list.stats()).toMatchObject({ size: 2 });
  });

  it('refuses at definition a selector that is missing or doubled, and defaults maxEntries', () => {
    const body = async () => 1;
    expect(() => protect({ name: 't', ttlMs: 1000 } as never, body)).toThrow(
      expect.objectContaining({ code: 'invalid_argument', message: expect.stringContaining('exactly one of') }),
    );
    expect(() => protect({ name: 't', ttlMs: 1000, entityParam: 'id', byArguments: true } as never, body)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
    expect(DEFAULT_PROTECT_MAX_ENTRIES).toBe(1000);
    expect(() => protect({ name: 't', ttlMs: 1000, entityParam: 'id' as never }, body)).not.toThrow();
  });
});

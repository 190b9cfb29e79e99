/**
 * `protect`: a per-session TTL cache in front of a read tool.
 */
import { canonicalJson } from '../core/canonical-json.js';
import { type Clock, systemClock } from '../core/clock.js';
import { InvalidArgumentError, kindOf, optionsOf } from '../invalid-argument.js';
import { CacheKeyError } from './errors.js';
import { sessionSlot } from './session.js';
import { type CacheStats, createTtlCache, type TtlCache } from './ttl-cache.js';

/**
 * How a protected tool finds the entity its result describes: one argument, a function of the
 * arguments, or — for a tool with no entity (a catalogue, a settings read) — the arguments as a
 * whole (`byArguments: true`: one entry per distinct canonical arguments, so a result is never
 * served for other arguments).
 */
export type EntitySelector<A> =
  | { readonly entityParam: keyof A & string; readonly entityFrom?: never; readonly byArguments?: never }
  | { readonly entityFrom: (args: A) => unknown; readonly entityParam?: never; readonly byArguments?: never }
  | { readonly byArguments: true; readonly entityParam?: never; readonly entityFrom?: never };

/** The entries one session's cache holds when `maxEntries` is not given. */
export const DEFAULT_PROTECT_MAX_ENTRIES = 1000;

/** Options of {@link protect}. */
export type ProtectOptions<A> = EntitySelector<A> & {
  /** Tool identity used in keys and messages. Default the function's name. */
  readonly name?: string;
  /** How long a result stays fresh; an entry is stale once `now >= storedAt + ttlMs`. */
  readonly ttlMs: number;
  /** Most entries one cache holds; the least recently used goes first. Default {@link DEFAULT_PROTECT_MAX_ENTRIES}. */
  readonly maxEntries?: number;
  readonly clock?: Clock;
};

/** A tool wrapped by {@link protect}. Methods act on the cache of the current session. */
export interface ProtectedTool<A, R, Rest extends unknown[]> {
  (args: A, ...rest: Rest): Promise<R>;
  readonly toolName: string;
  /** Forget the cached result for `entity` in the current scope. */
  invalidate(entity: unknown): void;
  /** Forget everything cached in the current scope. */
  clear(): void;
  /** Counters of the current scope's cache. */
  stats(): CacheStats;
}

/**
 * The cache key of `entity` for tool `tool`: canonical JSON of a structured pair, so no pair of
 * (tool, entity) can collide with another the way a `tool:entity` string join does.
 */
export function protectKey(tool: string, entity: unknown): string {
  return canonicalJson([tool, entity]);
}

function checkOptions(name: string, ttlMs: number, maxEntries: number): void {
  if (!(Number.isFinite(ttlMs) && ttlMs > 0)) {
    throw new InvalidArgumentError(
      `protect`,
      'options.ttlMs',
      `must be a positive number, got \`${ttlMs}\` (tool \`${name}\`)`,
    );
  }
  if (!(Number.isInteger(maxEntries) && maxEntries > 0)) {
    const problem = `must be a positive integer, got \`${maxEntries}\` (tool \`${name}\`)`;
    throw new InvalidArgumentError('protect', 'options.maxEntries', problem);
  }
}

/**
 * Wrap a read tool with a TTL cache keyed by (tool, entity).
 *
 * Inside {@link withSession} each session gets its own cache; outside one, the cache belongs to
 * this wrapped tool alone (never to the process). `null` and `undefined` results are cached; a
 * thrown error clears the key and is re-thrown; concurrent identical misses share one call.
 *
 * @example
 * const getCustomer = protect({ name: 'get_customer', entityParam: 'id', ttlMs: 60_000, maxEntries: 500 },
 *   async ({ id }: { id: string }) => db.customers.find(id) ?? null);
 * await withSession(() => getCustomer({ id: 'c_1' }), { sessionId: 'user-42' });
 */
export function protect<A, R, Rest extends unknown[] = []>(
  given: ProtectOptions<A>,
  fn: (args: A, ...rest: Rest) => R | Promise<R>,
): ProtectedTool<A, R, Rest> {
  const options = optionsOf('protect', given);
  if (typeof fn !== 'function')
    throw new InvalidArgumentError('protect', 'fn', `must be a function, got ${kindOf(fn)}`);
  const name = options.name ?? (fn.name === '' ? 'anonymous' : fn.name);
  const { ttlMs, maxEntries = DEFAULT_PROTECT_MAX_ENTRIES } = options;
  checkOptions(name, ttlMs, maxEntries);
  const settings = Object.freeze({ ttlMs, maxEntries, clock: options.clock ?? systemClock });
  const { entityParam, entityFrom, byArguments } = options;
  const selectors = [entityParam !== undefined, entityFrom !== undefined, byArguments === true].filter(Boolean).length;
  // Refused now, not at every call: a definition without a selector could never build a key.
  if (selectors !== 1) {
    throw new InvalidArgumentError(
      'protect',
      'options',
      `needs exactly one of \`entityParam\`, \`entityFrom\` or \`byArguments: true\` (tool \`${name}\`)`,
    );
  }
  if (entityFrom !== undefined && typeof entityFrom !== 'function')
    throw new InvalidArgumentError('protect', 'options.entityFrom', `must be a function (tool \`${name}\`)`);
  // The identity object under which every session stores this tool's cache.
  const identity = {};
  let own: TtlCache | undefined;

  function cache(): TtlCache {
    const scoped = sessionSlot(identity, () => createTtlCache(settings));
    if (scoped !== undefined) return scoped;
    own ??= createTtlCache(settings);
    return own;
  }

  function keyOf(entity: unknown): string {
    if (entity === undefined) throw new CacheKeyError(name, 'the entity is undefined');
    try {
      return protectKey(name, entity);
    } catch (cause) {
      throw new CacheKeyError(name, 'the entity is not JSON', { cause });
    }
  }

  function entityOf(args: A): unknown {
    if (byArguments === true) return args ?? null;
    if (entityFrom !== undefined) return entityFrom(args);
    const value = (args as Record<string, unknown> | null | undefined)?.[entityParam as string];
    if (value === undefined) throw new CacheKeyError(name, `argument \`${String(entityParam)}\` is missing`);
    return value;
  }

  async function protectedTool(args: A, ...rest: Rest): Promise<R> {
    const key = keyOf(entityOf(args));
    return cache().fetch(key, async () => fn(args, ...rest));
  }

  return Object.assign(protectedTool, {
    toolName: name,
    invalidate(entity: unknown): void {
      cache().delete(keyOf(entity));
    },
    clear(): void {
      cache().clear();
    },
    stats(): CacheStats {
      return cache().stats();
    },
  });
}

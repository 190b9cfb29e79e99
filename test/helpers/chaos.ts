/**
 * The chaos test's parts: a fake provider that counts effects per transition, a killer loop, calls
 * bounded by a timeout, a logger that collects, and the report of outcome distributions (written
 * under the OS temp directory, since tests may not print).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type LedgerLogger,
  type LedgerStorage,
  LedgerStorageUnavailableError,
  type TransitionRecord,
} from '../../src/index.js';
import type { HistoryRecorder } from '../../src/testing/index.js';
import type { ChaosTarget } from './chaos-targets.js';

/** What the fake provider returns for an effect. */
export interface ProviderEffect {
  readonly transition: string;
  readonly effectId: string;
}

/** A provider that records every effect per transition in memory. */
export interface FakeProvider {
  /** Perform the effect of `transition`: record it, then answer after a short await. */
  effect(transition: string): Promise<ProviderEffect>;
  count(transition: string): number;
  /** The first effect's answer. */
  answer(transition: string): ProviderEffect | undefined;
  /** Transitions that were charged more than once. */
  readonly doubles: readonly string[];
  readonly total: number;
}

/** A fake provider; with `history`, each effect is also recorded there. */
export function createFakeProvider(history?: HistoryRecorder): FakeProvider {
  const effects = new Map<string, ProviderEffect[]>();
  const doubles: string[] = [];
  let total = 0;
  return {
    async effect(transition) {
      const list = effects.get(transition) ?? [];
      const effect: ProviderEffect = { transition, effectId: `eff_${transition}_${list.length + 1}` };
      list.push(effect);
      effects.set(transition, list);
      total += 1;
      if (list.length === 2) doubles.push(transition);
      history?.effect(transition, effect);
      await sleep(1 + Math.floor(Math.random() * 3));
      return effect;
    },
    count: (transition) => effects.get(transition)?.length ?? 0,
    answer: (transition) => effects.get(transition)?.[0],
    doubles,
    get total() {
      return total;
    },
  };
}

/** How a bounded call ended. */
export type Settled =
  | { readonly kind: 'ok'; readonly value: unknown }
  | { readonly kind: 'error'; readonly error: unknown }
  | { readonly kind: 'hung' };

/** Settle `promise`, or report it hung after `ms` (it keeps running; its end is still handled). */
export async function bounded(promise: Promise<unknown>, ms: number): Promise<Settled> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<Settled>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'hung' }), ms);
  });
  const settled = promise.then(
    (value): Settled => ({ kind: 'ok', value }),
    (error: unknown): Settled => ({ kind: 'error', error }),
  );
  try {
    return await Promise.race([settled, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** Run `fn` over `items` with at most `concurrency` at a time; results in item order. */
export async function inLanes<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  return results;
}

/** What the killer loop did. */
export interface ChaosTally {
  rounds: number;
  killed: number;
  readonly failures: string[];
}

/** Kill the target's connections every few milliseconds until `stop()`. */
export function startChaos(target: ChaosTarget, pauseMs: readonly [number, number]): { stop(): Promise<ChaosTally> } {
  const tally: ChaosTally = { rounds: 0, killed: 0, failures: [] };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await sleep(pauseMs[0] + Math.floor(Math.random() * (pauseMs[1] - pauseMs[0] + 1)));
      if (stopped) break;
      try {
        tally.killed += await target.kill();
        tally.rounds += 1;
      } catch (error) {
        tally.failures.push(error instanceof Error ? error.message : String(error));
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return tally;
    },
  };
}

/**
 * Wait until every storage answers a read again: a kill that landed just before the chaos stopped
 * may still be closing a socket, and reconnecting clients need a moment.
 */
export async function settle(storages: readonly LedgerStorage[]): Promise<void> {
  for (const storage of storages) {
    for (let attempt = 0; ; attempt++) {
      try {
        await storage.get('chaos-settle');
        break;
      } catch (error) {
        if (attempt >= 500) throw error;
        await sleep(20);
      }
    }
  }
}

/** One thing the ledger told its logger. */
export interface LogEntry {
  readonly level: 'debug' | 'warn' | 'error';
  readonly message: string;
  readonly data: Readonly<Record<string, unknown>> | undefined;
}

/** A logger that keeps what it is told (tests may not print). */
export function collectingLogger(): LedgerLogger & { readonly entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at =
    (level: LogEntry['level']) =>
    (message: string, data?: Readonly<Record<string, unknown>>): void => {
      entries.push({ level, message, data });
    };
  return { entries, debug: at('debug'), warn: at('warn'), error: at('error') };
}

/** The error's class, with the storage operation for `LedgerStorageUnavailableError`. */
export function errorLabel(error: unknown): string {
  if (!(error instanceof Error)) return `non-error ${String(error)}`;
  const operation = (error as { operation?: unknown }).operation;
  return typeof operation === 'string' ? `${error.name}(${operation})` : error.name;
}

/** Count items by a label. */
export function countBy<T>(items: readonly T[], label: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) {
    const key = label(item);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

/** Where the chaos reports go. */
export const CHAOS_REPORT_DIR: string = join(tmpdir(), 'hyphae-chaos');

/** Write a backend's report as JSON; returns the file's path. */
export function writeChaosReport(backend: string, report: unknown): string {
  mkdirSync(CHAOS_REPORT_DIR, { recursive: true });
  const file = join(CHAOS_REPORT_DIR, `${backend}.json`);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file;
}

/** A storage whose chosen update lands and then loses its reply, as when a connection dies mid-reply. */
export interface LossyStorage {
  readonly storage: LedgerStorage;
  /**
   * The next update for which `when(next)` holds is written to the store, then reported as failed
   * (as the driver reports a broken connection), and the read that follows fails too.
   */
  loseReplyOf(when: (next: TransitionRecord) => boolean): void;
}

export function lossyStorage(inner: LedgerStorage): LossyStorage {
  let armed: ((next: TransitionRecord) => boolean) | null = null;
  let failingReads = 0;
  const broken = (operation: string): LedgerStorageUnavailableError =>
    new LedgerStorageUnavailableError(operation, { cause: new Error('Socket closed unexpectedly (injected)') });
  return {
    storage: {
      capabilities: inner.capabilities,
      async get(key) {
        if (failingReads > 0) {
          failingReads -= 1;
          throw broken('get');
        }
        return inner.get(key);
      },
      create: (record) => inner.create(record),
      async update(key, expectedVersion, next) {
        const landed = await inner.update(key, expectedVersion, next);
        if (landed && armed?.(next) === true) {
          armed = null;
          failingReads = 1;
          throw broken('update');
        }
        return landed;
      },
      findByTicket: (ticketKey) => inner.findByTicket(ticketKey),
      list: (query) => inner.list(query),
      close: () => inner.close(),
    },
    loseReplyOf(when) {
      armed = when;
    },
  };
}

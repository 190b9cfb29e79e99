/**
 * The frame every conformance case runs in: fresh clients per case, all closed when it ends.
 */
import assert from 'node:assert/strict';
import type { LedgerStorage } from '../../storage/ledger-storage.js';

/** The test-framework functions the suite registers with; Vitest's `describe` and `it` fit. */
export interface ConformanceTestApi {
  describe(name: string, fn: () => void): void;
  it(name: string, fn: () => Promise<void>, timeout?: number): void;
}

/** What a driver passes to {@link describeStorageConformance}. */
export interface StorageConformanceOptions {
  /** Driver name, shown in the suite title. */
  readonly name: string;
  /** A NEW client (its own connection) on the same store at each call; race cases open several. */
  readonly open: () => Promise<LedgerStorage> | LedgerStorage;
  /** Runs before every case (cases use random keys, so most stores need none). */
  readonly reset?: () => Promise<void>;
  readonly api: ConformanceTestApi;
  /** How many clients race in the concurrency cases. Default `[2, 8, 32]`. */
  readonly concurrency?: readonly number[];
  /** Timeout of the concurrency cases, in ms. Default 30000. */
  readonly raceTimeoutMs?: number;
  /** The driver implements the optional `watch`, whose cases then run. Default false. */
  readonly watch?: boolean;
  /** The driver implements the optional `identity` (a ledger id), whose cases then run. Default false. */
  readonly identity?: boolean;
}

/** Opens clients for one case; each is closed when the case ends. */
export interface CaseClients {
  open(): Promise<LedgerStorage>;
  openMany(count: number): Promise<LedgerStorage[]>;
}

/** The registration helper the case groups share. */
export interface ConformanceSuite {
  readonly concurrency: readonly number[];
  readonly raceTimeoutMs: number;
  /** Whether the driver declared the optional `watch`. */
  readonly watch: boolean;
  /** Whether the driver declared the optional `identity`. */
  readonly identity: boolean;
  group(name: string, fn: () => void): void;
  test(name: string, body: (clients: CaseClients) => Promise<void>, timeout?: number): void;
}

/** Build the registration helper for one driver. */
export function createConformanceSuite(options: StorageConformanceOptions): ConformanceSuite {
  const { api, open: openClient, reset } = options;
  return {
    concurrency: options.concurrency ?? [2, 8, 32],
    raceTimeoutMs: options.raceTimeoutMs ?? 30_000,
    watch: options.watch ?? false,
    identity: options.identity ?? false,
    group(name, fn) {
      api.describe(name, fn);
    },
    test(name, body, timeout) {
      api.it(
        name,
        async function runConformanceCase() {
          await reset?.();
          const opened: LedgerStorage[] = [];
          const clients: CaseClients = {
            async open() {
              const client = await openClient();
              opened.push(client);
              return client;
            },
            openMany(count) {
              return Promise.all(Array.from({ length: count }, () => clients.open()));
            },
          };
          try {
            await body(clients);
          } finally {
            // Cases may close clients themselves; closing twice is part of the contract.
            await Promise.allSettled(opened.map((client) => client.close()));
          }
        },
        timeout,
      );
    },
  };
}

/**
 * Register the cases of an optional capability in a group when the driver declared it; otherwise
 * one case that checks its clients have no `capability` (a driver must not offer what its
 * conformance run never exercised).
 */
export function defineOptionalCases(
  suite: ConformanceSuite,
  capability: 'watch' | 'identity',
  titles: { readonly absent: string; readonly group: string },
  define: () => void,
): void {
  if (!suite[capability]) {
    suite.test(titles.absent, async ({ open }) => {
      assert.equal((await open())[capability], undefined);
    });
    return;
  }
  suite.group(titles.group, define);
}

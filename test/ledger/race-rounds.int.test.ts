/**
 * Exactly once, round after round, on the real stores: N in-process contenders (each with its own
 * storage instance: its own client, pool or file handle) and four child processes race on one
 * transition per round, each starting after a random 0–5 ms jitter.
 *
 * Per round: the round's effect log (one appended line per execution, see test/helpers/race.ts)
 * holds exactly one line, every contender gets the winner's result, and the record is COMPLETED
 * by its first claim. The children live for all the rounds of a backend and take each round as a
 * line on stdin; the in-process contenders keep their storage for the whole test.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LedgerStorage, type TransitionRecord, ticketKey } from '../../src/index.js';
import { checkHistory, formatAnomalies, type HistoryEvent } from '../../src/testing/index.js';
import { countHistory, writeHistoryReport } from '../helpers/history-report.js';
import {
  contend,
  RACE_AGENT_ID,
  type RaceArgs,
  type RaceEffect,
  type RaceReply,
  raceTool,
  readRaceEffects,
} from '../helpers/race.js';
import { type RaceWorkers, READY_TIMEOUT_MS, startRaceWorkers } from '../helpers/race-workers.js';
import { testStores } from '../helpers/server-stores.js';

const stores = await testStores(
  ['sqlite', 'node-sqlite', 'redis', 'ioredis', 'redis-cluster', 'ioredis-cluster', 'postgres'],
  'race',
);
const SIZES = [2, 8, 32] as const;
const ROUNDS = 100;
const CHILDREN = 4;
/** Where each backend's round statistics are written (tests may not print). */
const REPORT_DIR = join(tmpdir(), 'hyphae-race-rounds');

const jitterMs = (): number => Math.floor(Math.random() * 6);

/** What the rounds of one test found. */
interface Tally {
  rounds: number;
  /** Rounds won by an in-process contender and by a child process. */
  readonly wins: { parent: number; child: number };
  readonly anomalies: string[];
}

/** One round as a history: every contender's call and every execution of the body. */
function roundHistory(args: RaceArgs, replies: readonly RaceReply[], effects: readonly RaceEffect[]): HistoryEvent[] {
  const transition = args.round;
  return [
    ...replies.flatMap((reply): HistoryEvent[] => {
      const op = `${reply.contender}/${reply.round}`;
      const invoke: HistoryEvent = {
        type: 'invoke',
        op,
        process: reply.contender,
        caller: reply.contender,
        transition,
        callId: `call_${reply.round}`,
        at: reply.startedAt,
      };
      const settled: HistoryEvent = reply.ok
        ? { type: 'ok', op, result: reply.result, at: reply.settledAt }
        : {
            type: 'fail',
            op,
            error: { name: reply.name, code: reply.code === 'none' ? null : reply.code, message: reply.message },
            at: reply.settledAt,
          };
      return [invoke, settled];
    }),
    ...effects.map(
      (effect): HistoryEvent => ({
        type: 'effect',
        transition,
        process: effect.contender,
        result: { round: effect.round, executedBy: effect.contender },
        at: effect.at,
      }),
    ),
  ];
}

/** Check one round and add what it found to the tally. */
function checkRound(
  store: string,
  tally: Tally,
  args: RaceArgs,
  replies: readonly RaceReply[],
  effects: readonly RaceEffect[],
  record: TransitionRecord | null,
): void {
  tally.rounds += 1;
  const problems: string[] = [];
  const history = checkHistory(roundHistory(args, replies, effects), { records: { [args.round]: record } });
  countHistory('race-rounds', store, history);
  if (!history.ok) problems.push(formatAnomalies(history.anomalies));
  if (effects.length !== 1) {
    problems.push(`${effects.length} executions (${effects.map((e) => e.contender).join(', ')})`);
  }
  const winner = effects[0]?.contender;
  if (winner !== undefined) tally.wins[winner.startsWith('child') ? 'child' : 'parent'] += 1;
  const expected = { round: args.round, executedBy: winner };
  for (const reply of replies) {
    if (!reply.ok) problems.push(`${reply.contender} failed: ${reply.name} ${reply.message}`);
    else if (!isDeepStrictEqual(reply.result, expected)) {
      problems.push(`${reply.contender} got ${JSON.stringify(reply.result)}, winner ${winner}`);
    }
  }
  if (
    record === null ||
    record.outcome !== 'COMPLETED' ||
    record.fence !== 1 ||
    record.attempts !== 1 ||
    !isDeepStrictEqual(record.result, expected)
  ) {
    problems.push(`record ${JSON.stringify(record)}`);
  }
  if (problems.length > 0) tally.anomalies.push(`round ${args.round}: ${problems.join('; ')}`);
}

function summary(store: string, n: number, tally: Tally): string {
  return `${store}, ${n} in-process + ${CHILDREN} children: ${tally.rounds} rounds, won by in-process ${tally.wins.parent} / child ${tally.wins.child}, ${tally.anomalies.length} anomalous`;
}

for (const store of stores) {
  describe.skipIf(store.skip)(`${store.name}: ${ROUNDS} race rounds on one transition each`, () => {
    let workers: RaceWorkers | null = null;
    let inspector: LedgerStorage | null = null;
    let scratch = '';
    const reports: Record<string, unknown> = {};

    beforeAll(async () => {
      scratch = mkdtempSync(join(tmpdir(), 'hyphae-race-logs-'));
      inspector = store.open();
      // Creates the schema once, before dozens of storages check it concurrently.
      await inspector.get('warm-up');
      workers = startRaceWorkers(CHILDREN, store.childEnv());
      await workers.ready;
    }, READY_TIMEOUT_MS + 20_000);

    afterAll(async () => {
      await workers?.stop();
      workers?.kill();
      await inspector?.close();
      rmSync(scratch, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
      await store.dispose();
      writeHistoryReport('race-rounds', store.name);
      mkdirSync(REPORT_DIR, { recursive: true });
      writeFileSync(join(REPORT_DIR, `${store.name}.json`), `${JSON.stringify(reports, null, 2)}\n`);
    }, 60_000);

    it.each(SIZES)(
      '%i in-process contenders + 4 child processes: one execution and one result per round',
      async (n) => {
        const storages = Array.from({ length: n }, () => store.open());
        try {
          const tools = storages.map((storage, i) => raceTool(storage, `parent-${i}`));
          await Promise.all(storages.map((storage) => storage.get('warm-up')));
          const tally: Tally = { rounds: 0, wins: { parent: 0, child: 0 }, anomalies: [] };
          const started = Date.now();

          for (let r = 0; r < ROUNDS; r++) {
            const round = `n${n}-r${r}-${randomUUID().slice(0, 8)}`;
            const toolCallId = `call_${round}`;
            const args: RaceArgs = {
              round,
              amount: 100 + r,
              idempotencyKey: `idem_${round}`,
              effectLog: join(scratch, `${round}.log`),
            };
            const fromChildren = (workers as RaceWorkers).round(() => ({ toolCallId, args, jitterMs: jitterMs() }));
            const inProcess = tools.map((tool, i) =>
              contend(tool, { toolCallId, args, jitterMs: jitterMs() }).then(
                (outcome): RaceReply => ({ ...outcome, round, contender: `parent-${i}` }),
              ),
            );
            const [local, remote] = await Promise.all([Promise.all(inProcess), fromChildren]);
            const record = await (inspector as LedgerStorage).findByTicket(ticketKey({}, RACE_AGENT_ID, toolCallId));
            checkRound(store.name, tally, args, [...local, ...remote], readRaceEffects(args.effectLog), record);
          }
          reports[`n${n}`] = { ...tally, anomalies: tally.anomalies.slice(0, 20), ms: Date.now() - started };

          expect(tally.anomalies, summary(store.name, n, tally)).toEqual([]);
          expect(tally.rounds).toBe(ROUNDS);
          expect(tally.wins.parent + tally.wins.child, summary(store.name, n, tally)).toBe(ROUNDS);
        } finally {
          await Promise.all(storages.map((storage) => storage.close()));
        }
      },
      120_000,
    );
  });
}

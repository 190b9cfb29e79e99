/**
 * The contended tool of the race-round tests, identical in the test process and in every
 * `test/fixtures/race-worker.ts` child, and the messages the parent and the children exchange.
 *
 * Executions are counted in the round's effect log: the body appends one line per execution with a
 * single `O_APPEND` write (atomic on a local file), before it returns. A line cannot be written
 * twice for one execution, nor skipped by one, so the log's line count is the execution count.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLedger, type LedgeredFunction, type LedgerStorage, sideEffect, type ToolSpec } from '../../src/index.js';

/** Agent and policy of every racing ledger (parent and children). */
export const RACE_AGENT_ID = 'hyphae-race-agent';
export const RACE_POLICY_VERSION = 'race-1';

/** A payment-like class: a second execution would be a double charge. */
export const RACE_SPEC: ToolSpec = {
  name: 'race_charge',
  sideEffectClass: 'keyed_mutate',
  providerIdempotencyKeyParam: 'idempotencyKey',
};

/** Arguments of one round's call (the same for every contender of the round). */
export interface RaceArgs {
  readonly round: string;
  readonly amount: number;
  readonly idempotencyKey: string;
  /** The round's effect log. */
  readonly effectLog: string;
}

/** What the winner's body returns and every contender must get back. */
export interface RaceResult {
  readonly round: string;
  readonly executedBy: string;
}

/** One line of an effect log. */
export interface RaceEffect {
  readonly round: string;
  readonly contender: string;
  readonly pid: number;
  /** Epoch ms (sub-millisecond) when the effect ran, comparable across processes. */
  readonly at: number;
}

/** What the parent sends a child to start one round: one JSON line on its stdin. */
export interface RaceOrder {
  readonly toolCallId: string;
  readonly args: RaceArgs;
  /** Wait this long before calling (the round's start jitter). */
  readonly jitterMs: number;
}

/** When a contender's call started and settled (epoch ms, sub-millisecond, comparable across processes). */
export interface RaceTiming {
  readonly startedAt: number;
  readonly settledAt: number;
}

/** How one contender's call of a round ended. */
export type RaceOutcome = RaceTiming &
  (
    | { readonly ok: true; readonly result: RaceResult }
    | { readonly ok: false; readonly name: string; readonly code: string; readonly message: string }
  );

/** Wall-clock time with sub-millisecond precision. */
export const preciseNow = (): number => performance.timeOrigin + performance.now();

/** What a child prints for each order: one JSON line on its stdout. */
export type RaceReply = RaceOutcome & { readonly round: string; readonly contender: string };

/** The first line a child prints, once its store is open. */
export const RACE_READY = 'race-worker:ready';

/** Time the winner spends inside its side effect, so the other contenders meet it in flight. */
const BODY_MS = 3;

/** A ledger with the race settings: a lease no round outlives, and quick polling. */
export function raceTool(storage: LedgerStorage, contender: string): LedgeredFunction<RaceArgs, RaceResult> {
  const ledger = createLedger({
    storage,
    agentId: RACE_AGENT_ID,
    policyVersion: RACE_POLICY_VERSION,
    leaseTtlMs: 60_000,
    pollIntervalMs: 2,
    pollMaxIntervalMs: 16,
  });
  return ledger.tool(RACE_SPEC, async (args: RaceArgs) =>
    sideEffect(async (): Promise<RaceResult> => {
      const effect: RaceEffect = { round: args.round, contender, pid: process.pid, at: preciseNow() };
      appendFileSync(args.effectLog, `${JSON.stringify(effect)}\n`, { flag: 'a' });
      await sleep(BODY_MS);
      return { round: args.round, executedBy: contender };
    }),
  );
}

/** Run one contender's call: wait the jitter, call, and describe how it ended. */
export async function contend(tool: LedgeredFunction<RaceArgs, RaceResult>, order: RaceOrder): Promise<RaceOutcome> {
  await sleep(order.jitterMs);
  const startedAt = preciseNow();
  try {
    const result = await tool(order.args, { toolCallId: order.toolCallId });
    return { ok: true, result, startedAt, settledAt: preciseNow() };
  } catch (error) {
    const { name, code, message } = error as { name?: unknown; code?: unknown; message?: unknown };
    return {
      ok: false,
      startedAt,
      settledAt: preciseNow(),
      name: typeof name === 'string' ? name : 'NonError',
      code: typeof code === 'string' ? code : 'none',
      message: typeof message === 'string' ? message : String(error),
    };
  }
}

/** Every execution a round's effect log holds. */
export function readRaceEffects(log: string): RaceEffect[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RaceEffect);
}

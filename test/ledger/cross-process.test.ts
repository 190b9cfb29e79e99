/**
 * Exactly once across processes: four child workers share one store and race on one transition.
 *
 * Each worker opens the store, reports ready, waits for a start-signal file and then calls the
 * same `charge` (same tool call id, same arguments). The fake provider's log must hold exactly one
 * effect for the race, and all four must print the same result: the one executed by the winner,
 * which the others got by polling the ledger rather than by running the body.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TransitionRecord, ticketKey } from '../../src/index.js';
import {
  AGENT_ID,
  type ChargeResult,
  createScratch,
  createWorkerGroup,
  type DurableBackend,
  durableBackends,
  type OpenedStorage,
  readEffects,
  type WorkerConfig,
  type WorkerExit,
  type WorkerGroup,
} from '../helpers/backends.js';

const backends = await durableBackends();
const WORKERS = 4;

let scratch: ReturnType<typeof createScratch>;
let opened: OpenedStorage | null = null;
let workers: WorkerGroup | null = null;
beforeEach(() => {
  scratch = createScratch();
});
afterEach(async () => {
  workers?.kill();
  workers = null;
  scratch.remove();
  await opened?.cleanup();
  opened = null;
});

function callConfig(extra: Partial<WorkerConfig> = {}): WorkerConfig {
  const toolCallId = `call_${randomUUID()}`;
  return {
    sideEffectClass: 'keyed_mutate',
    toolCallId,
    args: { amount: 250, recipient: 'acct_42', idempotencyKey: `idem_${toolCallId}` },
    effectLog: scratch.file('provider.log'),
    ...extra,
  };
}

/** The current test's workers, killed in `afterEach`. */
function groupOn(backend: DurableBackend): WorkerGroup {
  workers ??= createWorkerGroup(backend);
  return workers;
}

/** Start four workers on `config`, release them together, and check they agree on one result. */
async function race(
  backend: DurableBackend,
  config: WorkerConfig,
): Promise<{ exits: WorkerExit[]; winner: ChargeResult }> {
  const startSignal = scratch.file(`start-${randomUUID()}`);
  const group = groupOn(backend);
  const racers = Array.from({ length: WORKERS }, () => group.spawn({ ...config, startSignal }));
  await Promise.all(racers.map((racer) => racer.ready));

  writeFileSync(startSignal, 'go');
  const exits = await Promise.all(racers.map((racer) => racer.exit));

  for (const exit of exits) {
    expect(exit, exit.stderr).toMatchObject({ code: 0, signal: null });
    expect(exit.output, exit.stderr).toMatchObject({ ok: true });
  }
  const results = exits.map((exit) => (exit.output?.ok === true ? exit.output.result : null));
  const winner = results[0];
  if (winner === null || winner === undefined) throw new Error('No result');
  for (const result of results) expect(result).toEqual(winner);
  // Exactly one of the four executed the body; the other three returned its stored result.
  expect(exits.filter((exit) => exit.pid === winner.executedBy)).toHaveLength(1);
  return { exits, winner };
}

async function recordOf(config: WorkerConfig): Promise<TransitionRecord | null> {
  return (opened as OpenedStorage).storage.findByTicket(ticketKey({}, AGENT_ID, config.toolCallId));
}

describe.each(backends)('$name: four processes race on one transition', { timeout: 180_000 }, (backend) => {
  afterAll(() => backend.dispose());

  it('one effect in the provider log, one result printed by all four', async () => {
    opened = await backend.open();
    // The losers meet the winner in flight and poll. The lease is generous: on a loaded machine a
    // short one could lapse under a live owner, and this test is about the race, not expiry.
    const config = callConfig({ bodyDelayMs: 300, leaseTtlMs: 10_000 });

    const { winner } = await race(backend, config);

    const effects = readEffects(config.effectLog);
    expect(effects).toHaveLength(1);
    expect(effects[0]).toMatchObject({ toolCallId: config.toolCallId, pid: winner.executedBy, result: winner });
    expect(await recordOf(config)).toMatchObject({
      outcome: 'COMPLETED',
      boundary: 'crossed',
      attempts: 1,
      fence: 1,
      result: winner,
    });
  });

  it('after a crash, four redispatchers reconciling NOT_EXECUTED at once run the call exactly once more', async () => {
    opened = await backend.open();
    const config = callConfig({ recordRef: 'before-provider', leaseTtlMs: 300 });
    const crashed = await groupOn(backend).run({ ...config, crashAt: 'inside-side-effect-before-provider' });
    expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
    const leaseUntil = (await recordOf(config))?.leaseUntil ?? 0;
    await sleep(Math.max(0, leaseUntil - Date.now()) + 25);
    expect(readEffects(config.effectLog)).toEqual([]);

    // Each one hard-blocks and asks the reconciler; only the compare-and-set winner of the reset runs.
    const { winner } = await race(backend, { ...config, reconciler: 'provider-log', leaseTtlMs: 10_000 });

    expect(readEffects(config.effectLog)).toEqual([
      { op: winner.op, toolCallId: config.toolCallId, pid: winner.executedBy, result: winner },
    ]);
    expect(await recordOf(config)).toMatchObject({ outcome: 'COMPLETED', attempts: 2, fence: 2, result: winner });
  });
});

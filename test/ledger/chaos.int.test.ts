/**
 * Connection chaos on the real servers: 200 ledgered calls (one transition each, eight at a time,
 * over four ledgers with their own client or pool) run while a killer loop terminates the
 * connections of the storages under test every few milliseconds.
 *
 * During the chaos every call must end, within a bound, with its result or a typed `GuardError`,
 * and the fake provider must never see a transition twice. After the chaos every call is
 * dispatched again on another ledger: it returns the stored result, runs (only when the record
 * proves the first attempt never crossed its boundary), or hard-blocks; still one effect at most.
 *
 * The outcome distributions are attached to the test as an annotation and written as JSON under
 * `<os tmpdir>/hyphae-chaos/<backend>.json`.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLedger,
  GuardError,
  type LedgeredFunction,
  LedgerHardBlockError,
  type LedgerStorage,
  sideEffect,
  type ToolSpec,
  type TransitionRecord,
  ticketKey,
} from '../../src/index.js';
import { checkHistory, createHistoryRecorder, formatAnomalies } from '../../src/testing/index.js';
import {
  bounded,
  collectingLogger,
  countBy,
  createFakeProvider,
  errorLabel,
  type FakeProvider,
  inLanes,
  type LogEntry,
  lossyStorage,
  type ProviderEffect,
  type Settled,
  settle,
  startChaos,
  writeChaosReport,
} from '../helpers/chaos.js';
import {
  type ChaosTarget,
  clusterChaosTarget,
  ioredisChaosTarget,
  postgresChaosTarget,
  redisChaosTarget,
} from '../helpers/chaos-targets.js';
import { countHistory, writeHistoryReport } from '../helpers/history-report.js';
import { integrationSkip, probePostgres, probeRedis } from '../helpers/integration.js';
import { hasRedisServer } from '../helpers/own-redis.js';
import { testStores } from '../helpers/server-stores.js';

const AGENT_ID = 'hyphae-chaos-agent';
const POLICY_VERSION = 'chaos-1';
const CALLS = 200;
const CONCURRENCY = 8;
const LEDGERS = 4;
/** Short, so a record orphaned by a lost reply expires quickly when it is dispatched again. */
const LEASE_MS = 1_500;
/** A call still pending after this long counts as hung (a failure). */
const CALL_TIMEOUT_MS = 20_000;
/** The killer sleeps this long (ms, min–max) between rounds. */
const KILL_PAUSE_MS = [5, 30] as const;
const COMPLETION_LOST = 'Completion could not be recorded';

/** Three classes with different gates after a failure; every body crosses a boundary. */
const SPECS = {
  idempotent_mutate: { name: 'chaos_sync', sideEffectClass: 'idempotent_mutate' },
  keyed_mutate: {
    name: 'chaos_charge',
    sideEffectClass: 'keyed_mutate',
    providerIdempotencyKeyParam: 'idempotencyKey',
  },
  non_idempotent_mutate: { name: 'chaos_email', sideEffectClass: 'non_idempotent_mutate' },
} as const satisfies Record<string, ToolSpec>;
type ChaosClass = keyof typeof SPECS;
const CLASSES = Object.keys(SPECS) as ChaosClass[];

interface ChaosArgs {
  /** The provider's name for this call's transition (one call id, one transition). */
  readonly transition: string;
  readonly idempotencyKey: string;
}

interface Call {
  readonly index: number;
  readonly callId: string;
  readonly cls: ChaosClass;
}

interface Redispatch {
  /** The record as the chaos left it; null when the first claim never landed. */
  readonly before: TransitionRecord | null;
  readonly effectsBefore: number;
  readonly settled: Settled;
}

type Tools = Record<ChaosClass, LedgeredFunction<ChaosArgs, ProviderEffect>>;

function toolsOn(storage: LedgerStorage, provider: FakeProvider, logger: ReturnType<typeof collectingLogger>): Tools {
  const ledger = createLedger({
    storage,
    agentId: AGENT_ID,
    policyVersion: POLICY_VERSION,
    leaseTtlMs: LEASE_MS,
    pollIntervalMs: 10,
    pollMaxIntervalMs: 100,
    logger,
  });
  const tool = (cls: ChaosClass) =>
    ledger.tool(SPECS[cls], (args: ChaosArgs) => sideEffect(() => provider.effect(args.transition)));
  return {
    idempotent_mutate: tool('idempotent_mutate'),
    keyed_mutate: tool('keyed_mutate'),
    non_idempotent_mutate: tool('non_idempotent_mutate'),
  };
}

const stateOf = (record: TransitionRecord | null): string =>
  record === null ? 'absent' : `${record.outcome}/${record.boundary}`;

const firstLabel = (settled: Settled): string =>
  settled.kind === 'ok' ? 'ok' : settled.kind === 'hung' ? 'hung' : errorLabel(settled.error);

/** Judge one call's two dispatches; returns its redispatch label and pushes any violation. */
function judge(
  call: Call,
  first: Settled,
  again: Redispatch,
  provider: FakeProvider,
  log: readonly LogEntry[],
  violations: string[],
): string {
  const fail = (what: string): void => {
    violations.push(`${call.callId} (${call.cls}, first ${firstLabel(first)}, was ${stateOf(again.before)}): ${what}`);
  };
  if (first.kind === 'hung') fail(`the first dispatch did not end within ${CALL_TIMEOUT_MS} ms`);
  if (first.kind === 'error' && !(first.error instanceof GuardError)) {
    fail(`untyped error ${errorLabel(first.error)}: ${(first.error as Error)?.message}`);
  }
  if (first.kind === 'ok' && !isDeepStrictEqual(first.value, provider.answer(call.callId))) {
    fail(
      `returned ${JSON.stringify(first.value)}, the provider answered ${JSON.stringify(provider.answer(call.callId))}`,
    );
  }

  const { settled, before, effectsBefore } = again;
  if (settled.kind === 'hung') {
    fail(`the redispatch did not end within ${CALL_TIMEOUT_MS} ms`);
    return 'hung';
  }
  if (settled.kind === 'error') {
    if (!(settled.error instanceof LedgerHardBlockError)) {
      fail(`the redispatch failed with ${errorLabel(settled.error)}: ${(settled.error as Error)?.message}`);
      return errorLabel(settled.error);
    }
    const lost = log.some((entry) => entry.message === COMPLETION_LOST && entry.data?.key === before?.key);
    if (first.kind === 'ok' && !lost) fail('hard-blocked although its first dispatch returned and completed');
    return 'hard-blocked';
  }
  if (!isDeepStrictEqual(settled.value, provider.answer(call.callId))) {
    fail(
      `the redispatch returned ${JSON.stringify(settled.value)}, the provider answered ${JSON.stringify(provider.answer(call.callId))}`,
    );
  }
  if (provider.count(call.callId) > effectsBefore) {
    // It ran: allowed only when nothing shows that the first attempt reached its provider.
    if (effectsBefore !== 0 || (before !== null && before.boundary !== 'not_crossed')) {
      fail(`ran again over ${effectsBefore} earlier effect(s)`);
    }
    return 'ran';
  }
  if (before?.outcome !== 'COMPLETED') fail('returned a result without running, from a record that was not COMPLETED');
  return 'returned stored result';
}

// The cluster targets start servers of their own: they need `redis-server`, not a running server.
const clusterSkip = !(await hasRedisServer());
if (clusterSkip && process.env.REQUIRE_INTEGRATION === '1')
  throw new Error('REQUIRE_INTEGRATION=1 and no `redis-server`');
const targets = [
  { name: 'redis', skip: integrationSkip(await probeRedis()), create: redisChaosTarget },
  { name: 'ioredis', skip: integrationSkip(await probeRedis()), create: ioredisChaosTarget },
  { name: 'postgres', skip: integrationSkip(await probePostgres()), create: postgresChaosTarget },
  { name: 'redis cluster', skip: clusterSkip, create: () => clusterChaosTarget('node-redis', 7161) },
  // ioredis' Cluster reconnects and sends the commands in flight again on its own, so the kills
  // may break no call at all: then every call must still be right, and the killer must have hit.
  { name: 'ioredis cluster', skip: clusterSkip, create: () => clusterChaosTarget('ioredis', 7171), absorbsKills: true },
] as const;

for (const entry of targets) {
  const { name, skip, create } = entry;
  const absorbsKills = 'absorbsKills' in entry && entry.absorbsKills;
  describe.skipIf(skip)(`${name}: ${CALLS} ledgered calls while our connections are killed`, () => {
    let target: ChaosTarget | null = null;

    beforeAll(async () => {
      target = await create();
    });

    afterAll(async () => {
      await target?.dispose();
    });

    it('every call ends typed, redispatch returns, reruns only unstarted work or hard-blocks; never two effects', async ({
      annotate,
    }) => {
      const chaosTarget = target as ChaosTarget;
      const history = createHistoryRecorder({ process: `chaos-${name}` });
      const provider = createFakeProvider(history);
      const logger = collectingLogger();
      const storages = await Promise.all(Array.from({ length: LEDGERS }, (_, i) => chaosTarget.open(i)));
      const tools = storages.map((storage) => toolsOn(storage, provider, logger));
      const tag = randomUUID().slice(0, 8);
      const calls: Call[] = Array.from({ length: CALLS }, (_, index) => ({
        index,
        callId: `chaos_${tag}_${index}`,
        cls: CLASSES[index % CLASSES.length] as ChaosClass,
      }));
      const dispatch = (call: Call, ledger: number): Promise<unknown> =>
        history.record({ caller: `ledger-${ledger % LEDGERS}`, transition: call.callId, callId: call.callId }, () =>
          (tools[ledger % LEDGERS] as Tools)[call.cls](
            { transition: call.callId, idempotencyKey: `idem_${call.callId}` },
            { toolCallId: call.callId },
          ),
        );
      const started = Date.now();

      const chaos = startChaos(chaosTarget, KILL_PAUSE_MS);
      const first = await inLanes(calls, CONCURRENCY, (call) => bounded(dispatch(call, call.index), CALL_TIMEOUT_MS));
      const kills = await chaos.stop();
      const chaosMs = Date.now() - started;
      await settle(storages);

      const inspector = storages[0] as LedgerStorage;
      const again = await inLanes(calls, 50, async (call): Promise<Redispatch> => {
        const before = await inspector.findByTicket(ticketKey({}, AGENT_ID, call.callId));
        const effectsBefore = provider.count(call.callId);
        return { before, effectsBefore, settled: await bounded(dispatch(call, call.index + 1), CALL_TIMEOUT_MS) };
      });

      const violations: string[] = [];
      const outcomes = calls.map((call, i) => {
        const firstSettled = first[i] as Settled;
        const redispatch = again[i] as Redispatch;
        const second = judge(call, firstSettled, redispatch, provider, logger.entries, violations);
        return { call, first: firstLabel(firstSettled), before: stateOf(redispatch.before), second };
      });
      const errored = outcomes.filter((o) => o.first !== 'ok');
      const records = Object.fromEntries(
        await Promise.all(
          calls.map(async (call) => [call.callId, await inspector.findByTicket(ticketKey({}, AGENT_ID, call.callId))]),
        ),
      );
      const completionLost = logger.entries
        .filter((entry) => entry.message === COMPLETION_LOST)
        .map((entry) => calls.find((call) => records[call.callId]?.key === entry.data?.key)?.callId)
        .filter((callId): callId is string => callId !== undefined);
      const checked = checkHistory(history.events(), { records, completionLost });
      countHistory('chaos', name, checked);
      writeHistoryReport('chaos', name);
      const report = {
        backend: name,
        marker: chaosTarget.marker,
        calls: CALLS,
        concurrency: CONCURRENCY,
        leaseMs: LEASE_MS,
        chaosMs,
        totalMs: Date.now() - started,
        kills,
        firstDispatch: countBy(outcomes, (o) => o.first),
        firstDispatchByClass: countBy(outcomes, (o) => `${o.call.cls}: ${o.first}`),
        erroredRecordStates: countBy(errored, (o) => o.before),
        redispatch: countBy(outcomes, (o) => `${o.first === 'ok' ? 'ok' : 'errored'} → ${o.second}`),
        redispatchByState: countBy(outcomes, (o) => `${o.call.cls} ${o.first} ${o.before} → ${o.second}`),
        effects: provider.total,
        doubles: provider.doubles,
        log: countBy(logger.entries, (entry) => `${entry.level}: ${entry.message}`),
        violations: violations.slice(0, 50),
        history: { ...checked.stats, anomalies: formatAnomalies(checked.anomalies.slice(0, 20)) },
      };
      const file = writeChaosReport(name, report);
      const brief = `${name}: ${kills.killed} connections killed in ${kills.rounds} rounds; first dispatch ${JSON.stringify(report.firstDispatch)}; redispatch ${JSON.stringify(report.redispatch)}; report ${file}`;
      await annotate(brief, 'chaos');

      expect(violations, brief).toEqual([]);
      expect(checked.anomalies, brief).toEqual([]);
      expect(provider.doubles, brief).toEqual([]);
      expect(kills.failures, brief).toEqual([]);
      expect(kills.killed, `the killer never found a connection — ${brief}`).toBeGreaterThan(0);
      if (!absorbsKills) expect(errored.length, `the chaos never broke a call — ${brief}`).toBeGreaterThan(0);
    }, 180_000);
  });
}

/**
 * The narrowest chaos: the completing write lands, its reply is lost with the connection, and the
 * read-back fails too. The owner's retry then loses its compare-and-set to its own landed write.
 */
for (const store of await testStores(['redis', 'postgres'], 'lost')) {
  describe.skipIf(store.skip)(`${store.name}: a completion whose reply was lost`, () => {
    afterAll(async () => {
      await store.dispose();
    });

    it('returns the result it stored rather than reporting itself fenced', async () => {
      const lossy = lossyStorage(store.open());
      const ledger = createLedger({ storage: lossy.storage, agentId: AGENT_ID, policyVersion: POLICY_VERSION });
      let effects = 0;
      const charge = ledger.tool(SPECS.keyed_mutate, (args: ChaosArgs) =>
        sideEffect(async () => {
          effects += 1;
          return { charged: args.transition };
        }),
      );
      const callId = `lost_${randomUUID()}`;
      try {
        lossy.loseReplyOf((next) => next.outcome === 'COMPLETED');

        const settled = await bounded(
          charge({ transition: callId, idempotencyKey: `idem_${callId}` }, { toolCallId: callId }),
          CALL_TIMEOUT_MS,
        );
        const record = await lossy.storage.findByTicket(ticketKey({}, AGENT_ID, callId));

        expect(effects).toBe(1);
        // The completion landed: the record is this owner's, COMPLETED with its result (fence 1).
        expect(record).toMatchObject({ outcome: 'COMPLETED', fence: 1, result: { charged: callId } });
        // So its caller must get that result, not be told that another owner took the claim over.
        expect(settled.kind === 'error' ? { kind: 'error', error: errorLabel(settled.error) } : settled).toEqual({
          kind: 'ok',
          value: { charged: callId },
        });
      } finally {
        await lossy.storage.close();
      }
    });
  });
}

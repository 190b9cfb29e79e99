/**
 * Every bad option — of a factory, a fuse, a driver, an adapter, the harness — is refused with one
 * class, InvalidOptionError (code `invalid_option`), naming the option's path.
 */
import { describe, expect, it } from 'vitest';
import { hyphaeMiddleware } from '../src/adapters/langchain.js';
import { runGuardedToolLoop } from '../src/adapters/openai.js';
import { createGuardPipeline } from '../src/adapters/pipeline.js';
import { compactToolResults, createPatchHarness, HarnessConfigError } from '../src/harness/index.js';
import {
  budgetFuse,
  canaryFuse,
  createFuseBox,
  createLedger,
  createMemoryStorage,
  FuseConfigError,
  GuardError,
  InvalidOptionError,
  judgeGate,
  loopFuse,
  MAX_DURATION_MS,
  permissionFuse,
} from '../src/index.js';
import { createPostgresStorage } from '../src/storage/postgres.js';
import { createRedisStorage } from '../src/storage/redis.js';
import { createSqliteReceiptSink, createSqliteSnapshotStorage, createSqliteStorage } from '../src/storage/sqlite.js';
import { exploreInterleavings } from '../src/testing/index.js';
import { posterSpec } from './harness/helpers/fixtures.js';
import { ScriptedMainModel } from './harness/helpers/scripted-main-model.js';

const storage = createMemoryStorage();
const ledgerBase = { storage, agentId: 'a', policyVersion: '1' };
const pool = { query: async () => ({ rows: [], rowCount: 0 }), end: async () => undefined };
const harnessBase = { designSpec: posterSpec, mainModel: new ScriptedMainModel([]) };

/** [what is called, the call, the option path the error must name]. */
const CASES: readonly (readonly [string, () => unknown, string])[] = [
  ['createLedger without storage', () => createLedger({ agentId: 'a', policyVersion: '1' } as never), 'storage'],
  ['createLedger blank agentId', () => createLedger({ ...ledgerBase, agentId: ' ' }), 'agentId'],
  ['createLedger empty policyVersion', () => createLedger({ ...ledgerBase, policyVersion: '' }), 'policyVersion'],
  ['createLedger NaN leaseTtlMs', () => createLedger({ ...ledgerBase, leaseTtlMs: Number.NaN }), 'leaseTtlMs'],
  [
    'createLedger leaseTtlMs past the timer maximum',
    () => createLedger({ ...ledgerBase, leaseTtlMs: MAX_DURATION_MS + 1 }),
    'leaseTtlMs',
  ],
  [
    'createLedger pollTimeoutMs past the timer maximum',
    () => createLedger({ ...ledgerBase, pollTimeoutMs: MAX_DURATION_MS * 2 }),
    'pollTimeoutMs',
  ],
  ['createLedger zero pollIntervalMs', () => createLedger({ ...ledgerBase, pollIntervalMs: 0 }), 'pollIntervalMs'],
  [
    'createLedger negative reconcileTimeoutMs',
    () => createLedger({ ...ledgerBase, reconcileTimeoutMs: -1 }),
    'reconcileTimeoutMs',
  ],
  ['createLedger onEvent', () => createLedger({ ...ledgerBase, onEvent: 5 as never }), 'onEvent'],
  ['createLedger receipts', () => createLedger({ ...ledgerBase, receipts: {} as never }), 'receipts'],
  ['createLedger reconciler', () => createLedger({ ...ledgerBase, reconciler: 5 as never }), 'reconciler'],
  [
    'createLedger requestIdentity',
    () => createLedger({ ...ledgerBase, requestIdentity: 'guess' as never }),
    'requestIdentity',
  ],
  ['loopFuse window', () => loopFuse({ window: 1 }), 'window'],
  ['permissionFuse maxDenials', () => permissionFuse({ granted: [], tools: {}, maxDenials: 0 }), 'maxDenials'],
  ['budgetFuse maxUsd', () => budgetFuse({ maxUsd: -1 }), 'maxUsd'],
  ['judgeGate threshold', () => judgeGate({ threshold: 2 }), 'threshold'],
  ['canaryFuse percent', () => canaryFuse({ percent: 150 } as never), 'percent'],
  ['fuse box run id', () => createFuseBox({}).forRun(''), 'runId'],
  ['SQLite create', () => createSqliteStorage({ path: ':memory:' }, { create: 'yes' as never }), 'create'],
  [
    'SQLite synchronous',
    () => createSqliteStorage({ path: ':memory:' }, { synchronous: 'OFF' as never }),
    'synchronous',
  ],
  ['SQLite busyTimeoutMs', () => createSqliteStorage({ path: ':memory:' }, { busyTimeoutMs: -1 }), 'busyTimeoutMs'],
  ['SQLite driver', () => createSqliteStorage({ path: ':memory:', driver: 'sqlite4' as never }), 'driver'],
  ['SQLite tablePrefix', () => createSqliteStorage({ path: ':memory:' }, { tablePrefix: 'x"; --' }), 'tablePrefix'],
  [
    'SQLite receipt sink tablePrefix',
    () => createSqliteReceiptSink({ path: ':memory:' }, { tablePrefix: '1x' }),
    'tablePrefix',
  ],
  [
    'SQLite snapshots synchronous',
    () => createSqliteSnapshotStorage({ path: ':memory:' }, { synchronous: 'OFF' as never }),
    'synchronous',
  ],
  ['PostgreSQL connection', () => createPostgresStorage(null as never), 'connection'],
  ['PostgreSQL pool', () => createPostgresStorage({ pool: {} as never }), 'pool'],
  ['PostgreSQL tablePrefix', () => createPostgresStorage({ pool }, { tablePrefix: 'a-b' }), 'tablePrefix'],
  ['PostgreSQL schema', () => createPostgresStorage({ pool }, { schema: 'a b' }), 'schema'],
  ['Redis connection', () => createRedisStorage(null as never), 'connection'],
  ['Redis url', () => createRedisStorage({ url: '' }), 'url'],
  ['Redis client', () => createRedisStorage({ client: {} as never }), 'client'],
  [
    'pipeline defaultMaxOutputTokens',
    () => createGuardPipeline({ defaultMaxOutputTokens: 0 }),
    'defaultMaxOutputTokens',
  ],
  ['LangChain maxOutputTokens', () => hyphaeMiddleware({}, { maxOutputTokens: 1.5 }), 'maxOutputTokens'],
  [
    'OpenAI loop maxTurns',
    () => runGuardedToolLoop({ client: {} as never, model: 'm', messages: [], maxTurns: 0 } as never),
    'maxTurns',
  ],
  ['harness limits.maxSteps', () => createPatchHarness({ ...harnessBase, limits: { maxSteps: 0 } }), 'limits.maxSteps'],
  ['harness mainModel', () => createPatchHarness({ ...harnessBase, mainModel: {} as never }), 'mainModel'],
  ['harness context policy afterModelCalls', () => compactToolResults({ afterModelCalls: 0 }), 'afterModelCalls'],
  ['exploreInterleavings workers', () => exploreInterleavings({ workers: 0 }), 'workers'],
];

async function thrown(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('a bad option is an InvalidOptionError naming its path', () => {
  it.each(CASES)('%s', async (_, call, option) => {
    const error = await thrown(call);

    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toBeInstanceOf(GuardError);
    expect(error).toMatchObject({ code: 'invalid_option', option });
    expect((error as Error).message).not.toBe('');
  });

  it('is still caught as FuseConfigError and HarnessConfigError', async () => {
    expect(await thrown(() => loopFuse({ window: 1 }))).toBeInstanceOf(FuseConfigError);
    expect(await thrown(() => compactToolResults({ afterModelCalls: 0 }))).toBeInstanceOf(HarnessConfigError);
  });
});

/**
 * `waitForReplicas` on one Redis server of the file's own with one replica of its own: a claim or
 * a completion waits for the replica, and when it does not acknowledge in time the claim is
 * refused, the tool does not run, and the storage that wrote it does not read its own
 * unreplicated write back as landed.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createLedger, GuardError, LedgerStorageUnavailableError } from '../../src/index.js';
import { createRedisStorage, type RedisStorage } from '../../src/storage/redis.js';
import { makeTestRecord } from '../../src/testing/storage-conformance.js';
import { hyphae } from '../config/cli-runner.js';
import { useTempDir, yaml } from '../config/helpers.js';
import { hasRedisServer, type OwnRedis, startOwnRedis } from '../helpers/own-redis.js';

const run = promisify(execFile);
const required = process.env.REQUIRE_INTEGRATION === '1';
const installed = await hasRedisServer();
if (!installed && required) throw new Error('REQUIRE_INTEGRATION=1 and `redis-server` is not installed');

const tempDir = useTempDir();

/** `hyphae doctor` on a config whose ledger is on `url` and waits for one replica. */
function doctor(url: string): { code: number | null; stdout: string } {
  const dir = tempDir();
  writeFileSync(
    join(dir, 'hyphae.yaml'),
    yaml(
      'transition: { agent_id: a, policy_version: 1 }',
      `action_ledger: { storage: redis, url: "${url}", prefix: "doctor-${randomUUID()}:", wait_for_replicas: { replicas: 1, timeout: 100ms } }`,
    ),
  );
  return hyphae(dir, ['doctor']);
}

describe.skipIf(!installed)('redis storage waitForReplicas', () => {
  let primary: OwnRedis;
  let replica: OwnRedis;
  const opened: RedisStorage[] = [];
  const open = (timeoutMs: number): RedisStorage => {
    const storage = createRedisStorage(
      { url: primary.url },
      { prefix: `wait:${randomUUID()}:`, waitForReplicas: { replicas: 1, timeoutMs } },
    );
    opened.push(storage);
    return storage;
  };

  beforeAll(async () => {
    primary = await startOwnRedis();
    replica = await startOwnRedis();
  });

  afterAll(async () => {
    await Promise.all(opened.map((storage) => storage.close()));
    await replica?.stop();
    await primary?.stop();
  });

  it('refuses settings that would not wait', () => {
    for (const waitForReplicas of [{ replicas: 0, timeoutMs: 10 }, { replicas: 1, timeoutMs: 0 }, {}]) {
      expect(() => createRedisStorage({ url: 'redis://127.0.0.1:1' }, { waitForReplicas } as never)).toThrow(
        GuardError,
      );
    }
  });

  it('refuses a claim no replica acknowledged: the tool does not run, its own storage does not read it back', async () => {
    const storage = open(50);
    const ledger = createLedger({ storage, agentId: 'wait-agent', policyVersion: '1' });
    let ran = 0;
    const charge = ledger.tool({ name: 'charge', sideEffectClass: 'non_idempotent_mutate' }, () => {
      ran += 1;
      return 'charged';
    });
    await expect(charge({}, { toolCallId: 'call-1' })).rejects.toBeInstanceOf(LedgerStorageUnavailableError);
    expect(ran).toBe(0);
    const record = makeTestRecord();
    const refused = await storage.create(record).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(LedgerStorageUnavailableError);
    expect(String((refused as Error).cause)).toMatch(/0 of 1 replicas acknowledged the write within 50 ms/);
    await expect(storage.get(record.key)).rejects.toBeInstanceOf(LedgerStorageUnavailableError);
    expect(await storage.replicas()).toEqual([{ node: `port ${primary.port}`, replicas: 0 }]);
    const refusedByDoctor = doctor(primary.url);
    expect(refusedByDoctor.code).toBe(1);
    expect(refusedByDoctor.stdout).toMatch(
      new RegExp(
        `FAIL +action ledger +redis: connected.*\\n +the server has fewer replicas connected than the 1 \`wait_for_replicas\` asks \\(port ${primary.port}: 0\\)`,
      ),
    );
    expect(refusedByDoctor.stdout).toMatch(/fix: start the missing replicas/);
  });

  it('completes calls the replica acknowledged, and reads a write once it is replicated', async () => {
    const storage = open(2_000);
    const record = makeTestRecord();
    await replica.stop();
    // A replica writes the RDB of its full sync to its directory: one of ours, not the working tree.
    const dir = mkdtempSync(join(tmpdir(), 'hyphae-replica-'));
    replica = await startOwnRedis(['--replicaof', '127.0.0.1', String(primary.port), '--dir', dir]);
    onTestFinished(() => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }));
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const { stdout } = await run('redis-cli', ['-p', String(replica.port), 'INFO', 'replication']);
      if (stdout.includes('master_link_status:up')) break;
      await sleep(25);
    }
    const ledger = createLedger({ storage, agentId: 'wait-agent', policyVersion: '1' });
    const charge = ledger.tool({ name: 'charge', sideEffectClass: 'non_idempotent_mutate' }, () => 'charged');
    expect(await charge({}, { toolCallId: 'call-2' })).toBe('charged');
    expect((await storage.create(record)).created).toBe(true);
    expect(await storage.get(record.key)).toEqual(record);
    expect(await storage.replicas()).toEqual([{ node: `port ${primary.port}`, replicas: 1 }]);
    const passed = doctor(primary.url);
    expect(passed.stdout).toMatch(
      new RegExp(`ok +action ledger +redis: connected[^]*replicas connected per master \\(port ${primary.port}: 1\\)`),
    );
    expect(passed.code).toBe(0);
  });
});

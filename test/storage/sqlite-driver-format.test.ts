import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { GuardError } from '../../src/errors.js';
import { createReceiptWriter } from '../../src/ledger/receipts/receipt-writer.js';
import { verifyReceipts } from '../../src/ledger/receipts/verify-receipts.js';
import { nodeSqliteModule } from '../../src/storage/sqlite/load-node-sqlite.js';
import {
  createSqliteReceiptSink,
  createSqliteSnapshotStorage,
  createSqliteStorage,
  type SqliteDriverName,
} from '../../src/storage/sqlite.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { workerCommand } from '../helpers/worker-command.js';
import { draft, hmacPair } from '../ledger/receipts/receipt-helpers.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'hyphae-sqlite-format-'));
let files = 0;
const freshFile = (): string => join(dir, `ledger-${++files}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }));

const PAIRS: readonly (readonly [SqliteDriverName, SqliteDriverName])[] = [
  ['better-sqlite3', 'node:sqlite'],
  ['node:sqlite', 'better-sqlite3'],
];

if (nodeSqliteModule() === undefined) {
  describe('sqlite driver choice on a runtime without node:sqlite', () => {
    it('opens and writes through better-sqlite3 by default', async () => {
      const file = freshFile();
      const storage = createSqliteStorage({ path: file });
      const record = makeTestRecord();
      await storage.create(record);
      await storage.close();
      const reopened = createSqliteStorage({ path: file, driver: 'better-sqlite3' });
      expect(await reopened.get(record.key)).toEqual(record);
      await reopened.close();
    });
  });
} else {
  describe.each(PAIRS)('a SQLite file written through %s, opened through %s', (writer, reader) => {
    it('holds the same records, tickets, pages and ledger id, and takes writes back', async () => {
      const file = freshFile();
      const first = createSqliteStorage({ path: file, driver: writer });
      const records = [makeTestRecord(), makeTestRecord(), makeTestRecord()];
      for (const record of records) await first.create(record);
      const [done] = records;
      if (done === undefined) throw new Error('no record');
      const completed = { ...done, outcome: 'COMPLETED' as const, version: 2, result: { paid: 100 } };
      expect(await first.update(done.key, 1, completed)).toBe(true);
      const id = await first.ledgerId();
      await first.close();

      const second = createSqliteStorage({ path: file, driver: reader }, { create: false });
      expect(await second.ledgerId()).toBe(id);
      expect(await second.get(done.key)).toEqual(completed);
      expect(await second.findByTicket(done.ticketKey ?? '')).toEqual(completed);
      const listed = await second.list({ limit: 10 });
      expect(listed.records.map((r) => r.key).sort()).toEqual(records.map((r) => r.key).sort());
      const conflict = await second.create({ ...done, owner: 'another-owner' });
      expect(conflict).toMatchObject({ created: false, conflict: 'key', record: completed });
      const added = makeTestRecord();
      expect((await second.create(added)).created).toBe(true);
      await second.close();

      const third = createSqliteStorage({ path: file, driver: writer });
      expect(await third.get(added.key)).toEqual(added);
      await third.close();
    });

    it('continues a receipt chain and a snapshot history written by the other driver', async () => {
      const file = freshFile();
      const keys = hmacPair('k1');
      const firstWriter = createReceiptWriter({
        sink: createSqliteReceiptSink({ path: file, driver: writer }),
        signer: keys.signer,
      });
      for (const n of [1, 2]) await firstWriter.write(draft(n));
      await firstWriter.close();
      const snapshots = createSqliteSnapshotStorage({ path: file, driver: writer });
      await snapshots.append('run-1', { status: 'running', state: { step: 1 }, at: 1 });
      await snapshots.close();

      const sink = createSqliteReceiptSink({ path: file, driver: reader });
      const secondWriter = createReceiptWriter({ sink, signer: keys.signer });
      expect(await secondWriter.write(draft(3))).toMatchObject({ status: 'appended', receipt: { seq: 3 } });
      expect(await verifyReceipts(sink, { keys: keys.verifier })).toMatchObject({
        ok: true,
        count: 3,
      });
      await secondWriter.close();
      const resumed = createSqliteSnapshotStorage({ path: file, driver: reader });
      await resumed.append('run-1', { status: 'completed', state: { step: 2 }, at: 2 });
      expect((await resumed.history('run-1')).map((s) => [s.seq, s.status])).toEqual([
        [0, 'running'],
        [1, 'completed'],
      ]);
      await resumed.close();
    });
  });

  describe('both drivers on one file', () => {
    it('in one process: the second driver is refused while the first has the file open', async () => {
      const file = freshFile();
      const first = createSqliteStorage({ path: file, driver: 'node:sqlite' });
      await first.ensureSchema();
      const second = createSqliteStorage({ path: file, driver: 'better-sqlite3' });
      await assert.rejects(second.get('k'), (error: unknown) => {
        assert.ok(error instanceof GuardError);
        expect(error.code).toBe('sqlite_driver_conflict');
        expect(error.message).toContain('is open through `node:sqlite` in this process');
        return true;
      });
      await first.close();
      expect(await second.get('k')).toBeNull();
      await second.close();
    });

    it('across processes: one winner per key when processes of both drivers race to create it', async () => {
      const file = freshFile();
      const drivers: SqliteDriverName[] = ['node:sqlite', 'better-sqlite3', 'node:sqlite', 'better-sqlite3'];
      const contenders = drivers.map((driver, i) => startContender(file, `p${i}`, driver));
      try {
        for (const contender of contenders) expect(await contender.nextLine()).toBe('ready');
        for (let round = 0; round < 10; round += 1) {
          const key = `race-${round}`;
          for (const contender of contenders) contender.send(key);
          const outcomes = await Promise.all(contenders.map(async (c) => JSON.parse(await c.nextLine()) as Outcome));
          expect(
            outcomes.filter((outcome) => outcome.created),
            key,
          ).toHaveLength(1);
          expect(new Set(outcomes.map((outcome) => outcome.owner)).size).toBe(1);
        }
      } finally {
        for (const contender of contenders) contender.end();
      }
      await Promise.all(contenders.map((contender) => contender.exited));
    });
  });
}

interface Outcome {
  readonly key: string;
  readonly created: boolean;
  readonly owner: string;
}

function startContender(file: string, owner: string, driver: SqliteDriverName) {
  const { command, args } = workerCommand('sqlite-create-contender');
  const child = spawn(command, [...args, file, owner, driver], { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = once(child, 'exit').then(([code]) => {
    if (code !== 0) throw new Error(`Contender \`${owner}\` exited with \`${String(code)}\`: ${stderr}`);
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    exited,
    send: (line: string) => child.stdin.write(`${line}\n`),
    end: () => child.stdin.end(),
    async nextLine(): Promise<string> {
      const ended = exited.then(() => ({ done: true as const, value: undefined }));
      const line = await Promise.race([lines.next(), ended]);
      if (line.done === true) throw new Error(`Contender \`${owner}\` ended early: ${stderr}`);
      return line.value;
    },
  };
}

/**
 * A process SIGKILLed between a completion and its receipt (or between the receipt and its ref):
 * the sweep, in another process, writes what is missing and nothing twice.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createLedger } from '../../../src/index.js';
import { createHmacSigner, createHmacVerifier } from '../../../src/ledger/receipts/signers.js';
import { verifyReceipts } from '../../../src/ledger/receipts/verify-receipts.js';
import { createJsonlReceiptSink } from '../../../src/storage/jsonl/jsonl-sink.js';
import type { Receipt } from '../../../src/storage/receipt.js';
import type { ReceiptSink } from '../../../src/storage/receipt-sink.js';
import { createSqliteReceiptSink, createSqliteStorage } from '../../../src/storage/sqlite.js';
import type { CrashWorkerConfig } from './fixtures/crash-worker.js';
import { scratchDir } from './receipt-helpers.js';

const WORKER = fileURLToPath(new URL('./fixtures/crash-worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const scratch = scratchDir();
afterAll(() => scratch.remove());
let runs = 0;

function runWorker(config: CrashWorkerConfig): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, JSON.stringify(config)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, stderr }));
  });
}

async function readChain(sink: ReceiptSink): Promise<Receipt[]> {
  const receipts: Receipt[] = [];
  for await (const receipt of sink.readAll()) receipts.push(receipt);
  return receipts;
}

const cases = [
  { sink: 'jsonl', killAt: 'transition_recorded', step: 'ok', outcome: 'COMPLETED' },
  { sink: 'jsonl', killAt: 'receipt_written', step: 'ok', outcome: 'COMPLETED' },
  { sink: 'sqlite', killAt: 'transition_recorded', step: 'inside', outcome: 'UNKNOWN' },
  { sink: 'sqlite', killAt: 'receipt_written', step: 'ok', outcome: 'COMPLETED' },
] as const;

describe.concurrent('a worker killed between its terminal write and its receipt', { timeout: 120_000 }, () => {
  it.for(cases)('$sink sink, killed at `$killAt` ($outcome): the sweep repairs it once', async (c) => {
    const run = ++runs;
    const secret = randomBytes(32).toString('base64');
    const config: CrashWorkerConfig = {
      dbPath: scratch.file(`ledger-${run}.db`),
      sink: c.sink,
      receiptsPath: scratch.file(c.sink === 'jsonl' ? `receipts-${run}.jsonl` : `receipts-${run}.db`),
      secret,
      calls: [
        { ticket: 'call_1', step: 'ok' },
        { ticket: 'call_2', step: c.step },
        { ticket: 'call_3', step: 'ok' },
      ],
      killAt: c.killAt,
      killTicket: 'call_2',
    };

    const exit = await runWorker(config);

    expect(exit.signal, exit.stderr).toBe('SIGKILL');
    const storage = createSqliteStorage({ path: config.dbPath });
    const openSink = (): ReceiptSink =>
      c.sink === 'jsonl'
        ? createJsonlReceiptSink({ path: config.receiptsPath })
        : createSqliteReceiptSink({ path: config.receiptsPath });
    const before = await readChain(openSink());
    // Before the receipt: only call_1's is on the chain. After it: call_2's too, but not its ref.
    expect(before).toHaveLength(c.killAt === 'transition_recorded' ? 1 : 2);
    const records = (await storage.list()).records;
    expect(records).toHaveLength(2);
    const killed = records.find((record) => record.ticket === 'call_2');
    expect(killed).toMatchObject({ outcome: c.outcome, receiptRef: expect.stringMatching(/^pending:outcome:/) });

    const ledger = createLedger({
      storage,
      agentId: 'crash-agent',
      policyVersion: 'p1',
      receipts: { sink: openSink(), signer: createHmacSigner({ key: secret, keyId: 'k1' }) },
    });
    const report = await ledger.sweepReceipts();
    const again = await ledger.sweepReceipts();

    expect(report).toMatchObject({
      owed: 1,
      appended: c.killAt === 'transition_recorded' ? 1 : 0,
      duplicates: c.killAt === 'transition_recorded' ? 0 : 1,
      refsWritten: 1,
      failed: 0,
    });
    expect(again).toMatchObject({ owed: 0, appended: 0 });
    const sink = openSink();
    const chain = await readChain(sink);
    expect(chain.map((receipt) => receipt.outcome)).toEqual(['COMPLETED', c.outcome]);
    expect(new Set(chain.map((receipt) => receipt.receiptId)).size).toBe(2);
    const after = (await ledger.list()).records;
    expect(after.map((record) => record.receiptRef).sort()).toEqual(chain.map((receipt) => receipt.receiptId).sort());
    const verified = await verifyReceipts(sink, { keys: createHmacVerifier({ key: secret, keyId: 'k1' }) });
    expect(verified).toMatchObject({ ok: true, count: 2 });
    await sink.close();
    await ledger.close();
  });
});

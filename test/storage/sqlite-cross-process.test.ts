import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { workerCommand } from '../helpers/worker-command.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'hyphae-sqlite-cross-process-'));

afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }));

interface Outcome {
  readonly key: string;
  readonly created: boolean;
  readonly owner: string;
}

interface Contender {
  readonly owner: string;
  readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  nextLine(): Promise<string>;
  readonly exited: Promise<void>;
}

function startContender(file: string, owner: string): Contender {
  const { command, args } = workerCommand('sqlite-create-contender');
  const child = spawn(command, [...args, file, owner], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = once(child, 'exit').then(([code]) => {
    if (code !== 0) throw new Error(`Contender \`${owner}\` exited with \`${String(code)}\`: ${stderr}`);
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  async function nextLine(): Promise<string> {
    const ended = exited.then(() => ({ done: true as const, value: undefined }));
    const line = await Promise.race([lines.next(), ended]);
    if (line.done === true) throw new Error(`Contender \`${owner}\` ended early: ${stderr}`);
    return line.value;
  }
  return { owner, child, nextLine, exited };
}

describe('sqlite storage across processes', () => {
  it('4 processes creating one key in one file at a shared start signal: exactly one wins', async () => {
    const file = join(dir, 'race.db');
    // Each process opens the fresh file (and races to create the schema) before saying ready.
    const contenders = ['p0', 'p1', 'p2', 'p3'].map((owner) => startContender(file, owner));
    for (const contender of contenders) expect(await contender.nextLine()).toBe('ready');

    const rounds: Outcome[][] = [];
    for (let round = 0; round < 20; round += 1) {
      // Arrange: every contender is idle. Act: send the same key to all, then collect every answer.
      const key = `race-key-${round}`;
      for (const contender of contenders) contender.child.stdin.write(`${key}\n`);
      rounds.push(await Promise.all(contenders.map(async (c) => JSON.parse(await c.nextLine()) as Outcome)));
    }
    for (const contender of contenders) contender.child.stdin.end();
    await Promise.all(contenders.map((contender) => contender.exited));

    const storage = createSqliteStorage({ path: file });
    for (const outcomes of rounds) {
      const winners = outcomes.filter((outcome) => outcome.created);
      expect(winners, `winners of \`${outcomes[0]?.key}\``).toHaveLength(1);
      const stored = await storage.get(outcomes[0]?.key ?? '');
      expect(stored?.owner).toBe(winners[0]?.owner);
      expect(outcomes.map((outcome) => outcome.owner)).toEqual(outcomes.map(() => stored?.owner));
    }
    expect((await storage.list({ limit: 1000 })).records).toHaveLength(rounds.length);
    await storage.close();
  });

  it('8 processes opening one brand-new file at once: every one opens it (the WAL switch is retried)', async () => {
    for (let trial = 0; trial < 6; trial += 1) {
      const file = join(dir, `fresh-${trial}.db`);
      const contenders = Array.from({ length: 8 }, (_, i) => startContender(file, `p${i}`));
      const lines = await Promise.all(contenders.map((contender) => contender.nextLine()));
      expect(lines, `trial ${trial}`).toEqual(contenders.map(() => 'ready'));
      for (const contender of contenders) contender.child.stdin.end();
      await Promise.all(contenders.map((contender) => contender.exited));
    }
  });
});

/**
 * Run several `fixtures/sink-writer.ts` processes on one sink at once.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SinkWriterConfig } from './fixtures/sink-writer.js';

const WRITER = fileURLToPath(new URL('./fixtures/sink-writer.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Start `processes` writers with `config` and wait for all; resolves to their exits. */
export function spawnWriters(
  processes: number,
  config: SinkWriterConfig,
): Promise<{ code: number | null; stdout: string; stderr: string }[]> {
  return Promise.all(
    Array.from(
      { length: processes },
      () =>
        new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
          const child = spawn(process.execPath, ['--import', 'tsx', WRITER, JSON.stringify(config)], {
            cwd: ROOT,
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (chunk: Buffer) => {
            stdout += chunk.toString('utf8');
          });
          child.stderr.on('data', (chunk: Buffer) => {
            stderr += chunk.toString('utf8');
          });
          child.on('error', reject);
          child.on('exit', (code) => resolve({ code, stdout, stderr }));
        }),
    ),
  );
}

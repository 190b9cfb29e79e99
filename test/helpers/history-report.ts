/**
 * The history checker's figures of a suite: every history a test checks is counted here, and
 * `writeHistoryReport` writes the totals (histories, operations, effects, anomalies) as JSON to
 * `$HYPHAE_HISTORY_DIR` (default: a folder under the OS temp directory), where `bench/history`
 * gathers them. Tests may not print, so the figures go to a file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HistoryCheck } from '../../src/testing/index.js';

/** The totals of one suite on one store. */
export interface HistoryTotals {
  histories: number;
  operations: number;
  effects: number;
  anomalies: number;
}

const totals = new Map<string, HistoryTotals>();

/** The folder the reports are written to. */
export function historyReportDir(): string {
  return process.env.HYPHAE_HISTORY_DIR ?? join(tmpdir(), 'hyphae-history');
}

/** Count one checked history of `suite` on `store`. */
export function countHistory(suite: string, store: string, check: HistoryCheck): void {
  const name = `${suite}.${store}`;
  const entry = totals.get(name) ?? { histories: 0, operations: 0, effects: 0, anomalies: 0 };
  entry.histories += 1;
  entry.operations += check.stats.operations;
  entry.effects += check.stats.effects;
  entry.anomalies += check.anomalies.length;
  totals.set(name, entry);
}

/** Write the totals of `suite` on `store` (one file each, so parallel test files never collide). */
export function writeHistoryReport(suite: string, store: string): void {
  const entry = totals.get(`${suite}.${store}`);
  if (entry === undefined) return;
  const dir = historyReportDir();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${suite}.${store}.json`), `${JSON.stringify({ suite, store, ...entry })}\n`);
}

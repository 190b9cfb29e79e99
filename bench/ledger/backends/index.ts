/**
 * Every backend the ledger bench knows, in report order. A backend that cannot run here (no
 * server answering) is reported as skipped.
 */
import type { Backend } from '../backend.js';
import { ioredisBackend } from './ioredis.js';
import { memoryBackend } from './memory.js';
import { postgresBackend } from './postgres.js';
import { redisBackend } from './redis.js';
import { sqliteBackend } from './sqlite.js';

/** The backends, in report order. */
export const BACKENDS: readonly Backend[] = [
  memoryBackend,
  sqliteBackend('better-sqlite3', 'FULL', {
    kind: 'ratio',
    max: 1.5,
    text: 'SQLite through better-sqlite3 (synchronous=FULL, the default) ledgered call ≤ 1.5× raw statements',
  }),
  sqliteBackend('better-sqlite3', 'NORMAL', {
    kind: 'ratio',
    max: 1.5,
    text: 'SQLite through better-sqlite3, synchronous=NORMAL ledgered call ≤ 1.5× raw statements',
  }),
  sqliteBackend('node:sqlite', 'FULL', {
    kind: 'ratio',
    max: 1.5,
    text: 'SQLite through node:sqlite (synchronous=FULL, the default) ledgered call ≤ 1.5× raw statements',
  }),
  sqliteBackend('node:sqlite', 'NORMAL', {
    kind: 'ratio',
    max: 1.5,
    text: 'SQLite through node:sqlite, synchronous=NORMAL ledgered call ≤ 1.5× raw statements',
  }),
  redisBackend,
  ioredisBackend,
  postgresBackend,
];

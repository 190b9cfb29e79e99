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
  sqliteBackend('FULL', {
    kind: 'ratio',
    max: 1.5,
    text: 'SQLite (default, synchronous=FULL) ledgered call ≤ 1.5× raw statements',
  }),
  sqliteBackend('NORMAL', {
    kind: 'ratio',
    max: 1.5,
    text: 'SQLite synchronous=NORMAL ledgered call ≤ 1.5× raw statements',
  }),
  redisBackend,
  ioredisBackend,
  postgresBackend,
];

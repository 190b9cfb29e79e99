/**
 * Random 64-hex-digit keys, like SHA-256 transition keys (so raw inserts land all over an index,
 * as the ledger's do), cheap enough (~0.2 µs) not to weigh on a baseline.
 */
import { randomBytes } from 'node:crypto';

const KEY_BYTES = 32;
let pool = Buffer.alloc(0);
let offset = 0;

/** A fresh random key. */
export function randomKey(): string {
  if (offset >= pool.length) {
    pool = randomBytes(KEY_BYTES * 4096);
    offset = 0;
  }
  offset += KEY_BYTES;
  return pool.toString('hex', offset - KEY_BYTES, offset);
}

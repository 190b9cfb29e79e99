import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileOutlivesProcess } from '../../src/storage/durability.js';

describe('fileOutlivesProcess', () => {
  it('is false for the databases that die with the process or the temp directory', () => {
    for (const path of ['', ':memory:', 'file::memory:?cache=shared', 'file:x.db?mode=memory', tmpdir()]) {
      expect(fileOutlivesProcess(path)).toBe(false);
    }
    expect(fileOutlivesProcess(join(tmpdir(), 'run', 'ledger.db'))).toBe(false);
    expect(fileOutlivesProcess('/dev/shm/ledger.db')).toBe(false);
  });

  it('is true for any other file, including one whose name only starts like the temp directory', () => {
    expect(fileOutlivesProcess('/var/lib/agent/ledger.db')).toBe(true);
    expect(fileOutlivesProcess('.hyphae/ledger.db')).toBe(true);
    expect(fileOutlivesProcess(`${tmpdir()}-not-temp/ledger.db`)).toBe(true);
  });
});

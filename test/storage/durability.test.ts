import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
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
    expect(fileOutlivesProcess(`${tmpdir()}-not-temp/ledger.db`)).toBe(true);
  });

  it('judges a relative path by where it resolves, wherever the working directory is', () => {
    // Relative to the working directory, which may itself be under the temp directory (a checkout in /tmp).
    const lasting = relative(process.cwd(), '/var/lib/agent/ledger.db');
    const transient = relative(process.cwd(), join(tmpdir(), 'agent', 'ledger.db'));

    expect(isAbsolute(lasting)).toBe(false);
    expect(fileOutlivesProcess(lasting)).toBe(true);
    expect(fileOutlivesProcess(transient)).toBe(false);
  });
});

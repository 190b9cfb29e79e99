import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyJsonPatch, JsonPatchError } from '../../../src/harness/json-patch/index.js';
import { deepFreeze, thrown } from './helpers.js';

// test/harness/json-patch/ → /work/main/ → /work/, beside which `shared/` sits.
const root = new URL('../../../../shared/conformance/json-patch/', import.meta.url);

interface ConformanceRecord {
  readonly comment?: string;
  readonly doc: unknown;
  readonly patch: unknown;
  readonly expected?: unknown;
  readonly error?: string;
  readonly disabled?: boolean;
}

function load(file: string): { name: string; record: ConformanceRecord }[] {
  const records = JSON.parse(readFileSync(new URL(file, root), 'utf8')) as ConformanceRecord[];
  return records
    .map((record, index) => ({ name: `${file} #${index}: ${record.comment ?? record.error ?? ''}`, record }))
    .filter(({ record }) => record.disabled !== true);
}

const files = { tests: load('tests.json'), spec: load('spec_tests.json') };
const all = [...files.tests, ...files.spec];
const expecting = all.filter(({ record }) => 'expected' in record);
const failing = all.filter(({ record }) => 'error' in record);

describe('applyJsonPatch — json-patch-tests conformance data', () => {
  it('runs every enabled record of both files (92 + 16 at the pinned commit)', () => {
    expect(files.tests.length).toBe(92);
    expect(files.spec.length).toBe(16);
    // Every enabled record states either a result or an error, so all of them run below.
    expect(expecting.length + failing.length).toBe(all.length);
    expect(expecting.length).toBe(74);
    expect(failing.length).toBe(34);
  });

  it.each(expecting)('$name', ({ record }) => {
    const doc = deepFreeze(structuredClone(record.doc));
    const patch = deepFreeze(structuredClone(record.patch));

    const result = applyJsonPatch(doc, patch);

    expect(result).toEqual(record.expected);
    expect(doc).toEqual(record.doc);
  });

  it.each(failing)('$name', ({ record }) => {
    const error = thrown(() => applyJsonPatch(deepFreeze(structuredClone(record.doc)), record.patch));

    expect(error).toBeInstanceOf(JsonPatchError);
    const patchError = error as JsonPatchError;
    // Every conformance failure lies in one operation; the error names it.
    expect(patchError.operationIndex).toEqual(expect.any(Number));
    expect(patchError.message).toContain(`operation ${patchError.operationIndex}`);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as harness from '../../src/harness/index.js';
import * as jsonPatch from '../../src/harness/json-patch/index.js';

const root = join(import.meta.dirname, '../../src/harness');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('hyphae/harness entry', () => {
  it('re-exports every public value of the JSON Patch module', () => {
    for (const name of Object.keys(jsonPatch)) expect(harness, name).toHaveProperty(name);
  });

  it('loads `ai` only in the AI SDK adapter, and only lazily', () => {
    for (const file of sources(root)) {
      const text = readFileSync(file, 'utf8');
      expect(text, relative(root, file)).not.toMatch(/from ['"]ai(\/[^'"]*)?['"]/);
      if (!file.endsWith(join('models', 'ai-sdk.ts')))
        expect(text, relative(root, file)).not.toMatch(/import\(['"]ai['"]\)/);
    }
  });

  it('imports no adapter, driver, config or CLI module', () => {
    for (const file of sources(root)) {
      const text = readFileSync(file, 'utf8');
      expect(text, relative(root, file)).not.toMatch(/from ['"](\.\.\/)+(adapters|cli|config|storage)\//);
    }
  });
});

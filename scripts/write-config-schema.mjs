// Writes `hyphae.schema.json` (the published JSON Schema of `hyphae.yaml`) from the config schema
// in `src/config/`, the one place it is defined. `--check` only compares, and fails when the
// committed file is stale (test/config/schema-file.test.ts runs the same comparison).
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { tsImport } from 'tsx/esm/api';

const target = new URL('../hyphae.schema.json', import.meta.url);
const { configJsonSchema } = await tsImport('../src/config/schema/config-node.ts', import.meta.url);
const schema = configJsonSchema();

if (process.argv.includes('--check')) {
  let committed;
  try {
    committed = JSON.parse(readFileSync(target, 'utf8'));
  } catch {
    committed = undefined;
  }
  if (!isDeepStrictEqual(committed, schema)) {
    console.error('hyphae.schema.json is stale: run `node scripts/write-config-schema.mjs`');
    process.exit(1);
  }
  console.log('hyphae.schema.json is up to date');
} else {
  writeFileSync(target, `${JSON.stringify(schema, null, 2)}\n`);
  // Format as the repository does, so `biome check .` passes on the generated file.
  const biome = spawnSync('npx', ['biome', 'format', '--write', fileURLToPath(target)], { stdio: 'ignore' });
  if (biome.status !== 0) console.warn('biome could not format hyphae.schema.json; run `npx biome format --write`');
  console.log(`wrote ${fileURLToPath(target)}`);
}

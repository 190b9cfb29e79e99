import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkImports, driverBranchesOf, layerOf, specifiersOf } from '../../scripts/check-imports.mjs';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'import-graph');
const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'check-imports.mjs');

function run(dir: string): { status: number; output: string } {
  try {
    return { status: 0, output: execFileSync(process.execPath, [SCRIPT, dir], { encoding: 'utf8', stdio: 'pipe' }) };
  } catch (error) {
    const failed = error as { status: number; stdout: string; stderr: string };
    return { status: failed.status, output: `${failed.stderr}${failed.stdout}` };
  }
}

describe('scripts/check-imports.mjs', () => {
  it('finds a circle of type-only imports and fails', () => {
    const result = checkImports(join(FIXTURES, 'circle'));

    expect(result.cycles).toEqual([['core/digest.ts', 'core/hash.ts', 'core/digest.ts']]);
    expect(result.violations).toEqual([]);
    const cli = run(join(FIXTURES, 'circle'));
    expect(cli.status).toBe(1);
    expect(cli.output).toContain('circle: core/digest.ts -> core/hash.ts -> core/digest.ts');
  });

  it('finds arrows against the layering, `import()` types included, without a circle', () => {
    const result = checkImports(join(FIXTURES, 'layering'));

    expect(result.cycles).toEqual([]);
    expect(result.violations).toEqual([
      { from: 'core/clock.ts', to: 'ledger/ledger.ts', fromLayer: 'core', toLayer: 'policy' },
      { from: 'storage/sqlite.ts', to: 'ledger/ledger.ts', fromLayer: 'drivers', toLayer: 'policy' },
    ]);
    expect(run(join(FIXTURES, 'layering')).status).toBe(1);
  });

  it("finds a branch on a store driver's name outside storage/, not in comments or in storage/", () => {
    const result = checkImports(join(FIXTURES, 'driver-branch'));

    expect(result.driverBranches).toEqual([
      { file: 'config/open.ts', line: 4, code: "=== 'redis'" },
      { file: 'config/open.ts', line: 6, code: "case 'sqlite':" },
    ]);
    const cli = run(join(FIXTURES, 'driver-branch'));
    expect(cli.status).toBe(1);
    expect(cli.output).toContain("branch on a driver's name outside storage/: config/open.ts:4");
    expect(driverBranchesOf("if ('postgres' !== kind) {}\n/* case 'memory': */")).toEqual([
      { line: 1, code: "'postgres' !==" },
    ]);
  });

  it('passes on src/', () => {
    const cli = run(join(import.meta.dirname, '..', '..', 'src'));

    expect(cli.output).toMatch(
      /check-imports: ok: \d+ modules, \d+ arrows, 0 circles, 0 arrows against the layering, 0 branches on a driver's name outside storage\//,
    );
    expect(cli.status).toBe(0);
  });

  it('reads static, re-exported, type-only and dynamic imports, and no imports in comments', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from './b.js';",
      "export { c } from './c.js';",
      "export type * from './d.js';",
      "import './e.js';",
      "const f = await import('./f.js');",
      '/**',
      " * import { g } from './g.js';",
      ' */',
      "// import { h } from './h.js';",
    ].join('\n');

    expect(specifiersOf(text)).toEqual(['./a.js', './b.js', './c.js', './d.js', './e.js', './f.js']);
  });

  it('puts the modules of src/ in the layers of DESIGN.md', () => {
    expect(layerOf('core/canonical-json.ts')).toBe('core');
    expect(layerOf('records/transition-record.ts')).toBe('records');
    expect(layerOf('storage/receipt.ts')).toBe('storage');
    expect(layerOf('errors.ts')).toBe('errors');
    expect(layerOf('storage/ledger-storage.ts')).toBe('storage');
    expect(layerOf('storage/sqlite/receipts.ts')).toBe('drivers');
    expect(layerOf('storage/redis.ts')).toBe('drivers');
    expect(layerOf('storage/drivers.ts')).toBe('drivers');
    expect(layerOf('peer-dependency.ts')).toBe('errors');
    expect(layerOf('ledger/create-ledger.ts')).toBe('policy');
    expect(layerOf('index.ts')).toBe('root');
  });
});

#!/usr/bin/env node
/**
 * The import graph of src/ against DESIGN.md's layering: every relative import (type imports,
 * re-exports and `import('…')` types included) is an arrow; the check fails on any circle of
 * modules, on any arrow the layering does not allow, and on any branch on a store driver's name
 * outside storage/ (what a store kind does is asked of its driver, in storage/drivers.ts).
 *
 *   node scripts/check-imports.mjs            check src/ of this checkout
 *   node scripts/check-imports.mjs DIR        check another tree (the tests' fixtures)
 *   node scripts/check-imports.mjs --json     the graph's figures and findings as JSON
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Which layer a module belongs to, by its path under src/ (first match wins). The order of the
 * layers, lowest first, follows DESIGN.md:
 *
 *   cli ──► config ──► policy: ledger · fuses · boundary · context ──► storage interface ──► errors ──► records ──► core
 *              └─────► drivers: sqlite · redis · postgres · the driver registry ──► storage interface
 *   adapters ─────────► policy                     harness ──► policy
 *
 * `records` (src/records/) is the vocabulary every layer shares: the transition record, its
 * envelope (classes and their properties, boundaries, outcomes, gates) and the decision it
 * carries. It imports only core; the errors carry records, so errors sit above it.
 */
export const LAYERS = [
  ['core', /^core\//],
  ['records', /^records\//],
  ['errors', /^(errors|invalid-argument|option-checks|peer-dependency)\.ts$/],
  ['drivers', /^storage\/(sqlite|redis|postgres|drivers)(\/|\.ts$|-)/],
  ['storage', /^storage\//],
  ['policy', /^(ledger|fuses|boundary|context)\//],
  ['testing', /^testing\//],
  ['config', /^config\//],
  ['adapters', /^adapters\//],
  ['harness', /^harness\//],
  ['otel', /^otel\//],
  ['dashboard', /^dashboard\//],
  ['cli', /^cli\//],
  ['root', /^index\.ts$/],
];

/** What each layer may import (itself always). Anything else is an arrow against the layering. */
export const ALLOWED = {
  core: [],
  records: ['core'],
  errors: ['core', 'records'],
  storage: ['core', 'records', 'errors'],
  drivers: ['core', 'records', 'errors', 'storage'],
  policy: ['core', 'records', 'errors', 'storage'],
  // The test kit runs the conformance suite and simulated workers over the ledger and the stores.
  testing: ['core', 'records', 'errors', 'storage', 'drivers', 'policy'],
  // config opens the stores it names (drivers, loaded lazily) and builds the policy.
  config: ['core', 'records', 'errors', 'storage', 'drivers', 'policy'],
  adapters: ['core', 'records', 'errors', 'storage', 'policy'],
  harness: ['core', 'records', 'errors', 'storage', 'policy'],
  // Telemetry listens to the ledger's, the fuses' and a config's events.
  otel: ['core', 'records', 'errors', 'storage', 'policy', 'config'],
  // The dashboard is given the MCP proxy's pin store through its options; it imports no adapter.
  dashboard: ['core', 'records', 'errors', 'storage', 'policy', 'config'],
  cli: ['core', 'records', 'errors', 'storage', 'drivers', 'policy', 'config', 'adapters', 'dashboard', 'testing'],
  // The root entry re-exports; it imports no driver, adapter, harness or CLI.
  root: ['core', 'records', 'errors', 'storage', 'policy', 'config'],
};

/** The layer of `file` (a path relative to the source root, `/`-separated), or undefined. */
export function layerOf(file) {
  for (const [layer, pattern] of LAYERS) if (pattern.test(file)) return layer;
  return undefined;
}

const STATIC = /^[ \t]*(?:import|export)\b[^'";]*?\bfrom[ \t]*['"]([^'"]+)['"]/gmu;
const BARE = /^[ \t]*import[ \t]*['"]([^'"]+)['"]/gmu;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/gu;

/** The specifiers `text` imports: static imports and re-exports (type-only too) and `import('…')`. */
export function specifiersOf(text) {
  const code = text.replace(/\/\*[\s\S]*?\*\//gu, '').replace(/^[ \t]*\/\/.*$/gmu, '');
  const out = [];
  for (const pattern of [STATIC, BARE, DYNAMIC]) for (const match of code.matchAll(pattern)) out.push(match[1]);
  return out;
}

function sourceFiles(root, dir = root, out = []) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(root, path, out);
    else if (/\.(ts|mts)$/u.test(name) && !name.endsWith('.d.ts')) out.push(relative(root, path).split(sep).join('/'));
  }
  return out;
}

/** The graph of `root`: module → the modules of ours it imports (sorted, `/`-separated paths). */
export function importGraph(root) {
  const files = sourceFiles(root);
  const known = new Set(files);
  const graph = new Map();
  for (const file of files) {
    const targets = new Set();
    for (const specifier of specifiersOf(readFileSync(join(root, file), 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = join(dirname(file), specifier).split(sep).join('/').replace(/\.js$/u, '.ts');
      if (known.has(target)) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** Every circle of `graph`, one per strongly connected component, as the cycle through it. */
export function findCycles(graph) {
  let index = 0;
  const stack = [];
  const on = new Set();
  const indices = new Map();
  const low = new Map();
  const components = [];
  const visit = (node) => {
    indices.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    on.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (on.has(next)) low.set(node, Math.min(low.get(node), indices.get(next)));
    }
    if (low.get(node) === indices.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        on.delete(member);
        component.push(member);
      } while (member !== node);
      const self = (graph.get(node) ?? []).includes(node);
      if (component.length > 1 || self) components.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!indices.has(node)) visit(node);
  return components.map((component) => cycleThrough(graph, component));
}

/** One cycle inside a strongly connected `component`, as the path back to its first module. */
function cycleThrough(graph, component) {
  const members = new Set(component);
  const start = component[0];
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (previous.get(path[0]) !== null) path.unshift(previous.get(path[0]));
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

/** The arrows of `graph` against the layering: `{ from, to, fromLayer, toLayer }`. */
export function layerViolations(graph) {
  const out = [];
  for (const [from, targets] of graph) {
    const fromLayer = layerOf(from);
    for (const to of targets) {
      const toLayer = layerOf(to);
      if (fromLayer === undefined || toLayer === undefined) {
        out.push({ from, to, fromLayer: fromLayer ?? 'none', toLayer: toLayer ?? 'none' });
        continue;
      }
      if (fromLayer !== toLayer && !ALLOWED[fromLayer].includes(toLayer)) out.push({ from, to, fromLayer, toLayer });
    }
  }
  return out;
}

/** The store kinds whose drivers live in storage/. */
export const DRIVER_NAMES = ['memory', 'sqlite', 'redis', 'postgres'];

const NAME = `['"](?:${DRIVER_NAMES.join('|')})['"]`;
const BRANCH = new RegExp(
  `(?:(?:===|!==|==|!=)\\s*${NAME})|(?:${NAME}\\s*(?:===|!==|==|!=))|(?:\\bcase\\s+${NAME}\\s*:)`,
  'gu',
);

/**
 * The branches on a driver's name (`kind === 'redis'`, `case 'sqlite':`) in `text`, comments left
 * out: each as its line number and the code matched.
 */
export function driverBranchesOf(text) {
  const found = [];
  const lines = text.replace(/\/\*[\s\S]*?\*\//gu, (comment) => comment.replace(/[^\n]/gu, ' ')).split('\n');
  for (const [index, line] of lines.entries()) {
    const code = line.replace(/\/\/.*$/u, '');
    for (const match of code.matchAll(BRANCH)) found.push({ line: index + 1, code: match[0] });
  }
  return found;
}

/** Every branch on a driver's name in the modules of `root` outside storage/. */
export function driverBranches(root) {
  const out = [];
  for (const file of sourceFiles(root)) {
    if (file.startsWith('storage/')) continue;
    for (const branch of driverBranchesOf(readFileSync(join(root, file), 'utf8'))) out.push({ file, ...branch });
  }
  return out;
}

/**
 * Check the tree at `root`: the graph's size, its circles, the arrows against the layering, and
 * the branches on a driver's name outside storage/.
 */
export function checkImports(root) {
  const graph = importGraph(root);
  let arrows = 0;
  for (const targets of graph.values()) arrows += targets.length;
  return {
    modules: graph.size,
    arrows,
    cycles: findCycles(graph),
    violations: layerViolations(graph),
    driverBranches: driverBranches(root),
  };
}

function failures(result) {
  return result.cycles.length + result.violations.length + result.driverBranches.length;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const dir = args.find((arg) => !arg.startsWith('--'));
  const root = resolve(dir ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'src'));
  const result = checkImports(root);
  if (json) console.log(JSON.stringify(result, null, 2));
  else {
    for (const cycle of result.cycles) console.error(`circle: ${cycle.join(' -> ')}`);
    for (const v of result.violations)
      console.error(`against the layering: ${v.from} (${v.fromLayer}) -> ${v.to} (${v.toLayer})`);
    for (const b of result.driverBranches)
      console.error(
        `branch on a driver's name outside storage/: ${b.file}:${b.line}: ${b.code} (ask storage/drivers.ts)`,
      );
    const verdict = failures(result) === 0 ? 'ok' : 'FAILED';
    console.log(
      `check-imports: ${verdict}: ${result.modules} modules, ${result.arrows} arrows, ${result.cycles.length} circles, ${result.violations.length} arrows against the layering, ${result.driverBranches.length} branches on a driver's name outside storage/`,
    );
  }
  if (failures(result) > 0) process.exitCode = 1;
}

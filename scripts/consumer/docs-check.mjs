// The documentation's TypeScript blocks, type-checked against the installed tarball with `tsc
// --strict` on TypeScript's defaults (`types: []`, module and resolution `nodenext`), and the blocks
// marked `runnable` run. The packages a block imports (other than hyphae and Node's own modules)
// are linked from the repository's node_modules: the versions its tests run against.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { linkPackages, run } from './project.mjs';
import { extractConfigs, extractSnippets, snippetSource, sourceLine } from './snippets.mjs';

const IMPORT = /(?:from\s+|import\s*\(\s*|import\s+)'([^']+)'/g;
const REFERENCE = /\/\/\/\s*<reference\s+types="([^"]+)"/g;

/** README.md and every Markdown file under docs/, relative to the repository. */
export function documentationFiles(repo) {
  const files = ['README.md'];
  const walk = (dir) => {
    for (const entry of readdirSync(join(repo, dir), { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  walk('docs');
  return files;
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The packages the snippets import or reference, with their `@types` where those exist. */
function neededPackages(repo, sources) {
  const names = new Set();
  for (const text of sources) {
    for (const [, specifier] of text.matchAll(IMPORT)) names.add(packageOf(specifier));
    for (const [, types] of text.matchAll(REFERENCE)) names.add(`@types/${types}`);
  }
  names.delete(undefined);
  names.delete('hyphae');
  for (const name of [...names]) {
    const types = `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`;
    if (!names.has(types) && existsSync(join(repo, 'node_modules', types))) names.add(types);
  }
  return [...names].filter((name) => existsSync(join(repo, 'node_modules', name))).sort();
}

/** A file importing every module subpath of the package: the published declarations alone. */
function declarationsProbe(repo) {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
  const lines = Object.entries(pkg.exports)
    .filter(([, target]) => typeof target !== 'string')
    .map(([subpath], i) => `import type * as m${i} from '${join(pkg.name, subpath)}';\nexport type { m${i} };`);
  return `${lines.join('\n')}\n`;
}

/** Turn tsc's `file(line,col): error …` lines into `docs/x.md:line:col …` lines. */
function mapDiagnostics(output, files) {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const match = /^(?:.*[\\/])?([^\\/(]+\.ts)\((\d+),(\d+)\): (.*)$/.exec(line);
      const entry = match === null ? undefined : files.get(match[1]);
      if (entry === undefined) return line;
      const at = sourceLine(entry.snippet, Number(match[2]));
      return `${entry.doc}:${at.line}:${at.prelude ? 'prelude' : match[3]}: ${match[4]}`;
    });
}

function tsc(repo, cwd, compilerOptions) {
  const tsconfig = {
    compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', types: [], ...compilerOptions },
    include: ['*.ts'],
  };
  writeFileSync(join(cwd, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  const bin = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
  return run(process.execPath, [bin, '-p', 'tsconfig.json', '--pretty', 'false'], { cwd });
}

/**
 * The published declarations alone, on TypeScript's defaults (`skipLibCheck` off, no `@types`):
 * run before any package is linked into the project, so nothing brings Node's types in.
 */
export function checkDeclarations(project, repo) {
  const dir = join(project.dir, 'declarations');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'imports.ts'), declarationsProbe(repo));
  const checked = tsc(repo, dir, { noEmit: true });
  if (checked.status === 0) return [];
  return `${checked.stdout}${checked.stderr}`.split('\n').filter((line) => line.trim() !== '');
}

/**
 * Type-check every block and run the runnable ones. Third-party declarations are skipped
 * (`skipLibCheck`): linked from the repository they see its dev tools, which a consumer does not
 * have; hyphae's own are checked by {@link checkDeclarations}.
 */
export function checkDocs(project, repo, { link = [] } = {}) {
  const dir = join(project.dir, 'snippets');
  mkdirSync(dir, { recursive: true });
  const files = new Map();
  const sources = [];
  for (const doc of documentationFiles(repo)) {
    for (const snippet of extractSnippets(readFileSync(join(repo, doc), 'utf8'))) {
      const name = `${doc.replaceAll('/', '__').replace(/\.md$/, '')}__${snippet.index + 1}.ts`;
      const { text } = snippetSource(snippet);
      writeFileSync(join(dir, name), text);
      files.set(name, { doc, snippet });
      sources.push(text);
    }
  }
  linkPackages(project, repo, [...new Set([...neededPackages(repo, sources), ...link])]);
  const checked = tsc(repo, dir, { outDir: 'out', rootDir: '.', skipLibCheck: true });
  const problems = checked.status === 0 ? [] : mapDiagnostics(`${checked.stdout}${checked.stderr}`, files);
  const ran = [];
  for (const [name, { doc, snippet }] of files) {
    if (!snippet.runnable) continue;
    const cwd = join(project.base, `run-${name.replace(/\.ts$/, '')}`);
    mkdirSync(cwd, { recursive: true });
    const script = join(dir, 'out', name.replace(/\.ts$/, '.js'));
    const result = run(process.execPath, [script], { cwd, env: { TMPDIR: project.tmp } });
    ran.push(`${doc}:${snippet.line}`);
    if (result.status !== 0) {
      problems.push(
        `${doc}:${snippet.line}: the runnable block exited ${result.status}:\n${result.stdout}${result.stderr}`,
      );
    }
  }
  return { problems, blocks: files.size, ran };
}

/** Every whole config file of the documentation is valid for the installed package's `validateConfig`. */
export function checkConfigs(project, repo) {
  const configs = documentationFiles(repo).flatMap((doc) =>
    extractConfigs(readFileSync(join(repo, doc), 'utf8')).map((config) => ({
      where: `${doc}:${config.line}`,
      ...config,
    })),
  );
  const file = join(project.dir, 'configs.json');
  writeFileSync(file, JSON.stringify(configs));
  const script = `
    import { readFileSync } from 'node:fs';
    import { validateConfig } from 'hyphae';
    for (const { where, text } of JSON.parse(readFileSync(${JSON.stringify(file)}, 'utf8'))) {
      const result = validateConfig(text, { file: where, baseDir: process.cwd() });
      if (!result.ok) for (const issue of result.issues) console.log(where + ': ' + issue.path + ': ' + issue.message);
    }`;
  const checked = run(process.execPath, ['--input-type=module', '-e', script], { cwd: project.dir });
  const problems = `${checked.stdout}${checked.stderr}`.split('\n').filter((line) => line.trim() !== '');
  if (checked.status !== 0 && problems.length === 0) problems.push(`validating the configs exited ${checked.status}`);
  return { problems, configs: configs.length };
}

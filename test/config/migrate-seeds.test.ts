/**
 * Every YAML example of mycelium-runtime's README, in both published versions (the markdown with
 * fenced blocks, and the older plain text whose examples are not fenced), converted with migrate,
 * opened with loadConfig and checked with `hyphae verify`: no FAIL.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { migrateMyceliumConfig } from '../../src/config/migrate/migrate-mycelium.js';
import { hyphae } from './cli-runner.js';
import { useTempDir } from './helpers.js';

const seed = (name: string) => readFileSync(new URL(`../../../shared/seeds/${name}`, import.meta.url), 'utf8');
const MARKDOWN = seed('001_4f7ad796bd1f61bf.txt');
const PLAIN = seed('000_2637905d04aeb10a.txt');
const ENV = { MYCELIUM_SIGNING_KEY: 'k'.repeat(48) };
const tempDir = useTempDir();

/** The sections of a mycelium.yaml: a line that starts with one of them starts or continues an example. */
const SECTION =
  /^(transition|action_ledger|task_ledger|state_flush|audit_receipt|message_validator|history_guard|registry|runner|tools|tasks):(\s|$)/;

/** The fenced ```yaml blocks of a markdown text. */
function fencedExamples(text: string): string[] {
  return [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1] as string);
}

/**
 * The unfenced examples of a plain text: from a line that starts with a section, every following
 * line that is indented, blank, a comment or another section; prose (an unindented line that is
 * none of these) ends the example. Comment lines right before the first section open it.
 */
function unfencedExamples(text: string): string[] {
  const examples: string[] = [];
  let current: string[] | undefined;
  const close = () => {
    while (current !== undefined && current.length > 0 && (current.at(-1) as string).trim() === '') current.pop();
    if (current !== undefined) examples.push(`${current.join('\n')}\n`);
    current = undefined;
  };
  // Comment lines right before a section belong to the example (`# mycelium.yaml: …`).
  let comments: string[] = [];
  for (const line of text.split('\n')) {
    if (SECTION.test(line)) {
      current ??= comments;
      current.push(line);
    } else if (current !== undefined && (/^\s/.test(line) || line === '' || line.startsWith('#'))) current.push(line);
    else {
      close();
      comments = line.startsWith('#') ? [...comments, line] : [];
      continue;
    }
    comments = [];
  }
  close();
  return examples;
}

const EXAMPLES = [
  ...fencedExamples(MARKDOWN).map((text, i) => [`README (markdown) example ${i + 1}`, text] as const),
  ...unfencedExamples(PLAIN).map((text, i) => [`README (plain text) example ${i + 1}`, text] as const),
];

describe('the YAML examples of both seed READMEs', () => {
  it('are found: three in each version, the same three', () => {
    expect(fencedExamples(MARKDOWN)).toHaveLength(3);
    expect(unfencedExamples(PLAIN)).toHaveLength(3);
    expect(unfencedExamples(PLAIN).map((text) => text.trim())).toEqual(
      fencedExamples(MARKDOWN).map((text) => text.trim()),
    );
  });

  it.each(EXAMPLES)('%s converts, loads and verifies with no FAIL', async (_, source) => {
    const { text, issues } = migrateMyceliumConfig(source);
    expect(issues).toEqual([]);
    const dir = tempDir();
    writeFileSync(join(dir, 'hyphae.yaml'), text);
    const config = await loadConfig('hyphae.yaml', { cwd: dir, env: ENV });
    await config.close();
    const json = join(dir, 'report.json');
    const run = hyphae(dir, ['verify', '--json', json], ENV);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(existsSync(json)).toBe(true);
    const report = JSON.parse(readFileSync(json, 'utf8')) as { summary: { fail: number } };
    expect(report.summary.fail).toBe(0);
    expect(run.stdout).not.toMatch(/^FAIL /m);
  });
});

import { describe, expect, it } from 'vitest';
import { extractConfigs, extractSnippets, snippetSource, sourceLine } from '../../scripts/consumer/snippets.mjs';

const DOC = [
  '# Title', // 1
  '', // 2
  '```ts', // 3
  "import { createLedger } from 'hyphae';", // 4
  '```', // 5
  '', // 6
  '<!-- prelude', // 7
  'declare const gateway: { charge(): Promise<void> };', // 8
  '-->', // 9
  '```ts runnable', // 10
  'await gateway.charge();', // 11
  'console.log(1);', // 12
  '```', // 13
  '```sh', // 14
  'npm install hyphae', // 15
  '```', // 16
  '````ts', // 17
  '```', // 18: inside a four-backtick fence, not a close
  '````', // 19
].join('\n');

describe('documentation blocks', () => {
  it('finds the TypeScript blocks, their markers and their hidden preludes, and skips other languages', () => {
    const blocks = extractSnippets(DOC);

    expect(blocks.map((b) => [b.line, b.runnable, b.prelude, b.code])).toEqual([
      [4, false, '', "import { createLedger } from 'hyphae';"],
      [11, true, 'declare const gateway: { charge(): Promise<void> };', 'await gateway.charge();\nconsole.log(1);'],
      [18, false, '', '```'],
    ]);
  });

  it('makes each block a module and maps its lines back to the Markdown', () => {
    const [, withPrelude] = extractSnippets(DOC);
    if (withPrelude === undefined) throw new Error('expected two blocks');

    const { text, codeStart } = snippetSource(withPrelude);

    expect(text.split('\n')[codeStart - 1]).toBe('await gateway.charge();');
    expect(text.trimEnd().endsWith('export {};')).toBe(true);
    expect(sourceLine(withPrelude, codeStart + 1)).toEqual({ prelude: false, line: 12 });
    expect(sourceLine(withPrelude, 1)).toEqual({ prelude: true, line: 10 });
  });
});

describe('documentation config files', () => {
  it('takes the yaml blocks that are a whole hyphae.yaml, and no other', () => {
    const doc = ['```yaml', '# hyphae.yaml', 'profile: production', '```', '```yaml', 'tools: {}', '```'].join('\n');

    expect(extractConfigs(doc)).toEqual([{ line: 2, text: '# hyphae.yaml\nprofile: production\n' }]);
  });
});

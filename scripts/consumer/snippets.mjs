// The TypeScript code blocks of the documentation, as files a type checker can read.
//
// A block is a fence whose info string starts with `ts` (```ts). Words after it mark it:
//   ```ts runnable   the block is also run (compiled, then `node`), and must exit 0
// A block that needs names it does not show (a `gateway` client, a tool body) takes them from a
// hidden prelude: an HTML comment on the lines right above the fence, invisible on the page,
//   <!-- prelude
//   declare const gateway: { charge(args: object): Promise<{ id: string }> };
//   -->
// The prelude is put before the block's code; it may hold imports and `declare` lines. Every file
// ends with `export {}` so blocks without imports are modules too (no names shared across blocks).
//
// A ```yaml block whose first line is `# hyphae.yaml` is a whole config file: it is validated.

const FENCE = /^(\s*)(`{3,}|~{3,})\s*(\S*)(.*)$/;
const PRELUDE_OPEN = /^\s*<!--\s*prelude\s*$/;

/**
 * The TypeScript blocks of one Markdown text.
 *
 * @returns `{ index, line, runnable, prelude, code }` per block, `line` being the 1-based line of
 * the block's first code line.
 */
export function extractSnippets(markdown) {
  const lines = markdown.split('\n');
  const snippets = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (open === null) continue;
    const [, , fence, lang, rest] = open;
    const close = lines.findIndex((text, j) => j > i && closes(text, fence));
    const end = close === -1 ? lines.length : close;
    if (lang === 'ts' || lang === 'typescript') {
      const words = rest.trim().split(/\s+/).filter(Boolean);
      snippets.push({
        index: snippets.length,
        line: i + 2,
        runnable: words.includes('runnable'),
        prelude: preludeAbove(lines, i),
        code: lines.slice(i + 1, end).join('\n'),
      });
    }
    i = end;
  }
  return snippets;
}

/** The ```yaml blocks that are whole config files (first line `# hyphae.yaml`), with their 1-based line. */
export function extractConfigs(markdown) {
  const lines = markdown.split('\n');
  const configs = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (open === null) continue;
    const close = lines.findIndex((text, j) => j > i && closes(text, open[2]));
    const end = close === -1 ? lines.length : close;
    if ((open[3] === 'yaml' || open[3] === 'yml') && lines[i + 1]?.trim() === '# hyphae.yaml') {
      configs.push({ line: i + 2, text: `${lines.slice(i + 1, end).join('\n')}\n` });
    }
    i = end;
  }
  return configs;
}

/** A closing fence: only fence characters, at least as many as the opening one. */
function closes(text, fence) {
  const trimmed = text.trim();
  return trimmed.length >= fence.length && trimmed === fence[0].repeat(trimmed.length);
}

/** The prelude comment ending on the line above `fenceLine`, if any. */
function preludeAbove(lines, fenceLine) {
  let close = fenceLine - 1;
  // One-line marker comments (`<!-- guards: examples/guards.ts -->`) may sit between a prelude and its fence.
  while (close >= 0 && /^\s*<!--.*-->\s*$/.test(lines[close])) close--;
  if (close < 0 || lines[close].trim() !== '-->') return '';
  for (let open = close - 1; open >= 0; open--) {
    if (PRELUDE_OPEN.test(lines[open])) return lines.slice(open + 1, close).join('\n');
    if (lines[open].includes('-->')) return '';
  }
  return '';
}

/**
 * The source file of one block: its prelude, a line that marks where the block starts, the block.
 *
 * @returns `{ text, codeStart }`, `codeStart` being the 1-based line of the block's first line.
 */
export function snippetSource(snippet) {
  const head = snippet.prelude === '' ? [] : snippet.prelude.split('\n');
  const text = [...head, '// ---', snippet.code, 'export {};', ''].join('\n');
  return { text, codeStart: head.length + 2 };
}

/** Where a line of a block's file comes from: the Markdown line, or the prelude. */
export function sourceLine(snippet, fileLine) {
  const { codeStart } = snippetSource(snippet);
  if (fileLine < codeStart) return { prelude: true, line: snippet.line - 1 };
  return { prelude: false, line: snippet.line + (fileLine - codeStart) };
}

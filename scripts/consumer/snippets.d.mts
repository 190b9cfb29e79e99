/** One TypeScript block of a Markdown text. */
export interface Snippet {
  readonly index: number;
  /** The 1-based line of the block's first code line. */
  readonly line: number;
  readonly runnable: boolean;
  readonly prelude: string;
  readonly code: string;
}

/** The TypeScript blocks of one Markdown text. */
export function extractSnippets(markdown: string): Snippet[];

/** The source file of one block, and the 1-based line its code starts on. */
export function snippetSource(snippet: Snippet): { text: string; codeStart: number };

/** Where a line of a block's file comes from. */
export function sourceLine(snippet: Snippet, fileLine: number): { prelude: boolean; line: number };

/** The ```yaml blocks that are whole config files (first line `# hyphae.yaml`). */
export function extractConfigs(markdown: string): { line: number; text: string }[];

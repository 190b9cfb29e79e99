/**
 * Markdown tables padded the way Biome formats them, so a freshly written RESULTS.md passes
 * `biome check` without a format pass.
 */

/** A column: its title and whether numbers align right. */
export interface Column {
  readonly title: string;
  readonly align?: 'left' | 'right';
}

const width = (text: string): number => [...text].length;

/** The lines of a table of `rows` (one cell per column). */
export function markdownTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string[] {
  const widths = columns.map((column, i) =>
    Math.max(3, width(column.title), ...rows.map((row) => width(row[i] ?? ''))),
  );
  const line = (cells: readonly string[]): string =>
    `| ${columns
      .map((column, i) => {
        const cell = cells[i] ?? '';
        const pad = ' '.repeat((widths[i] ?? 3) - width(cell));
        return column.align === 'right' ? pad + cell : cell + pad;
      })
      .join(' | ')} |`;
  const rule = `| ${columns.map((column, i) => (column.align === 'right' ? `${'-'.repeat((widths[i] ?? 3) - 1)}:` : '-'.repeat(widths[i] ?? 3))).join(' | ')} |`;
  return [line(columns.map((column) => column.title)), rule, ...rows.map(line)];
}

/**
 * A tagged template for server-rendered HTML: every interpolated value is escaped unless it is
 * itself {@link Html}; arrays are joined; null, undefined and false render nothing.
 */

/** A fragment of HTML that is already safe to send. */
export class Html {
  readonly #text: string;
  constructor(text: string) {
    this.#text = text;
  }
  /** The HTML text. */
  toString(): string {
    return this.#text;
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escape text for an HTML text node or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

/** A value a template may interpolate. */
export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return value.map((item: HtmlValue) => render(item)).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** Build HTML from a template, escaping every interpolation. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let text = strings[0] ?? '';
  for (const [index, value] of values.entries()) text += render(value) + (strings[index + 1] ?? '');
  return new Html(text);
}

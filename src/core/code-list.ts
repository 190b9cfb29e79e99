/**
 * Names in messages: each as a code span, comma-separated.
 */

/** `a`, `b`, `c` — or `none` when there are none. */
export function codeList(values: Iterable<string | number | boolean>): string {
  let out = '';
  for (const value of values) out += `${out === '' ? '' : ', '}\`${String(value)}\``;
  return out === '' ? 'none' : out;
}

/**
 * Server-rendered HTML through hono's `html` helper: every interpolated string is escaped unless it
 * is itself {@link Html}; arrays are joined; null, undefined and false render nothing.
 */
import { html as honoHtml } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

/** A fragment of HTML that is already safe to send. */
export type Html = HtmlEscapedString;

/**
 * A value a template may interpolate. `true` is left out: hono renders a boolean as nothing, so a
 * condition is written `flag && html\`…\`` and a flag to show is turned into text first.
 */
export type HtmlValue = Html | string | number | false | null | undefined | readonly HtmlValue[];

/** Build HTML from a template, escaping every interpolation. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  // hono answers with a promise only when a value is one; no HtmlValue is, so the HTML is ready here.
  return honoHtml(strings, ...values) as Html;
}

/**
 * The sign-in page: a token form (the token is posted, never put in a URL).
 */
import { type Html, html } from './html.js';
import { flash } from './layout.js';

/** The sign-in form, with why the last attempt failed. */
export function loginContent(error: string | undefined): Html {
  return html`${error === undefined ? '' : flash('bad', error)}
<div class="card">
<p>This dashboard needs a token (a <code>read</code> token looks; an <code>act</code> token also releases transitions and marks workers dead).</p>
<form class="action" method="post" action="/login">
<label>Token <input type="password" name="token" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>
</div>`;
}

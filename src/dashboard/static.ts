/**
 * The dashboard's only static files: one stylesheet and one small script, served from memory
 * (no front-end build, nothing fetched from elsewhere). The script keeps the parts of a page
 * marked `data-live` current: every few seconds it reads the page again and swaps those parts.
 */

/** The stylesheet. */
export const DASHBOARD_CSS = `
:root { color-scheme: light; --fg:#1d2433; --muted:#5b6475; --line:#dde2ea; --bg:#f6f7f9; --card:#fff;
  --ok:#1f7a4d; --warn:#a15c00; --bad:#b42318; --info:#2450a6; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--fg); background:var(--bg); }
header { display:flex; align-items:center; gap:1.5rem; padding:.7rem 1.5rem; background:#18202e; color:#fff; }
header .brand { font-weight:700; letter-spacing:.02em; }
header nav a { color:#cfd6e4; text-decoration:none; margin-right:1rem; }
header nav a:hover { color:#fff; }
header .mode { margin-left:auto; font-size:12px; color:#cfd6e4; }
main { padding:1.2rem 1.5rem 3rem; max-width:1280px; }
h1 { font-size:20px; margin:.2rem 0 1rem; }
h2 { font-size:15px; margin:1.4rem 0 .6rem; }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:1rem 1.2rem; margin-bottom:1rem; }
.grid { display:grid; grid-template-columns:repeat(auto-fit, minmax(260px, 1fr)); gap:1rem; align-items:start; }
.card > h2:first-child { margin-top:0; }
.note { color:var(--muted); font-size:12px; }
table { border-collapse:collapse; width:100%; background:var(--card); }
th, td { text-align:left; padding:.4rem .6rem; border-bottom:1px solid var(--line); vertical-align:top; }
th { font-size:12px; color:var(--muted); font-weight:600; }
td.key a { font-family:ui-monospace, Menlo, monospace; font-size:12px; }
code, .mono { font-family:ui-monospace, Menlo, monospace; font-size:12px; }
.badge { display:inline-block; padding:.05rem .45rem; border-radius:999px; font-size:12px; font-weight:600; background:#e8ebf0; }
.o-COMPLETED { background:#dcf3e6; color:var(--ok); }
.o-IN_FLIGHT { background:#e3ebfb; color:var(--info); }
.o-EXPIRED, .o-UNKNOWN, .o-FAILED_AFTER_EFFECT { background:#fde7d4; color:var(--warn); }
.o-BLOCKED { background:#fbe0de; color:var(--bad); }
.o-FAILED_BEFORE_EFFECT { background:#eceef2; color:var(--muted); }
.counts { display:flex; flex-wrap:wrap; gap:.5rem; }
.count { min-width:7rem; padding:.5rem .7rem; border:1px solid var(--line); border-radius:6px; }
.count b { display:block; font-size:20px; }
form.filters { display:flex; flex-wrap:wrap; gap:.6rem; align-items:end; margin-bottom:1rem; }
form.filters label, form.action label { display:flex; flex-direction:column; font-size:12px; color:var(--muted); gap:.2rem; }
input, select, textarea { font:inherit; padding:.3rem .45rem; border:1px solid #c3cad6; border-radius:5px; background:#fff; }
textarea { width:100%; min-height:3.2rem; }
button { font:inherit; padding:.35rem .9rem; border-radius:5px; border:1px solid #26406f; background:#2d4f8a; color:#fff; cursor:pointer; }
button.danger { background:var(--bad); border-color:#8b1a12; }
form.action { display:grid; gap:.5rem; max-width:36rem; }
.flash { padding:.6rem .9rem; border-radius:6px; margin-bottom:1rem; border:1px solid; }
.flash.ok { background:#e9f7ef; border-color:#a9dcbf; color:var(--ok); }
.flash.bad { background:#fdecea; border-color:#f2b8b2; color:var(--bad); }
.timeline { list-style:none; margin:0; padding:0; border-left:2px solid var(--line); }
.timeline li { position:relative; padding:.1rem 0 .7rem 1rem; }
.timeline li::before { content:""; position:absolute; left:-6px; top:.45rem; width:10px; height:10px; border-radius:50%; background:#9aa5b8; }
.timeline li.k-receipt::before { background:var(--ok); }
.timeline li.k-operator::before { background:var(--warn); }
.timeline li.k-outcome::before { background:var(--info); }
.timeline li.k-decision::before { background:#6b5bd6; }
.verdicts { list-style:none; margin:.2rem 0 0; padding:0; font-size:12px; }
.verdict { display:inline-block; min-width:3rem; font-weight:600; }
.verdict.v-allow { color:var(--ok); }
.verdict.v-deny { color:var(--bad); }
.timeline time { color:var(--muted); font-size:12px; margin-right:.5rem; }
dl.facts { display:grid; grid-template-columns:max-content 1fr; gap:.25rem 1rem; margin:0; }
dl.facts dt { color:var(--muted); }
dl.facts dd { margin:0; word-break:break-all; }
.pager { margin-top:.8rem; }
pre { margin:0; white-space:pre-wrap; word-break:break-word; }
table[data-pin-diff] td { width:45%; }
table[data-pin-diff] td:first-child { width:10%; }
form[data-bulk] { max-width:none; }
.live { font-size:12px; color:#9fb0cc; }
`;

/** The script: live parts of the page, read again every few seconds while the tab is visible. */
export const DASHBOARD_JS = `(() => {
  const parts = () => [...document.querySelectorAll('[data-live][id]')];
  if (parts().length === 0) return;
  const status = document.getElementById('live-status');
  async function refresh() {
    if (document.hidden) return;
    try {
      const response = await fetch(location.href, { credentials: 'same-origin', headers: { 'x-hyphae-live': '1' } });
      if (!response.ok) throw new Error(String(response.status));
      const page = new DOMParser().parseFromString(await response.text(), 'text/html');
      for (const part of parts()) {
        const fresh = page.getElementById(part.id);
        if (fresh !== null) part.replaceChildren(...[...fresh.childNodes].map((node) => document.importNode(node, true)));
      }
      if (status) status.textContent = 'live, updated ' + new Date().toLocaleTimeString();
    } catch (error) {
      if (status) status.textContent = 'live updates paused (' + error.message + ')';
    }
  }
  setInterval(refresh, 5000);
})();
`;

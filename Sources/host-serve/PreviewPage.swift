/// `GET /` of `host serve`: a self-contained page (no build step, no CDN) to pick a screen and
/// two profiles (or edited attributes), see each tree with the rule trace, the differences
/// between them highlighted, and each user's navigation graph; it refreshes on every reload
/// (server-sent events from `/v1/events`).
///
/// The page holds no script and no style of its own: they are `/preview.js` and `/preview.css`,
/// and the page is served with a Content-Security-Policy that runs no other script (no inline
/// script, no `eval`, no plugins, no base URL, not framed). The script puts everything that
/// comes from the project (screen ids, profile names, titles, props, diagnostics) into the DOM
/// as text only — `textContent`, `setAttribute`, `createElement` — never as markup: there is no
/// `innerHTML`, `insertAdjacentHTML`, `outerHTML` or `document.write` in it (checked by
/// ServeCommandTests), so a profile named `<img src=x onerror=…>` shows as those characters.
enum PreviewPage {
    /// The Content-Security-Policy of the page (docs/serve.md, "The preview page").
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'; object-src 'none'"

    static let html = #"""
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Loom preview</title>
<link rel="stylesheet" href="/preview.css">
<script src="/preview.js" defer></script>
</head>
<body>
<header><b>Loom preview</b>
 <label>screen <select id="screen"></select></label>
 <span id="status"></span></header>
<div id="errors"></div>
<main id="columns"></main>
</body></html>
"""#

    static let css = #"""
body{font:14px system-ui,sans-serif;margin:0;color:#222}
header{padding:8px 12px;background:#1d3557;color:#fff;display:flex;gap:12px;align-items:center}
header select{font:inherit}
#errors{display:none;background:#ffe3e3;color:#a00;padding:8px 12px;white-space:pre-wrap;font-family:monospace}
main{display:flex;gap:12px;padding:12px}
section{flex:1;min-width:0;border:1px solid #ccc;border-radius:6px;padding:8px}
section h2{font-size:15px;margin:0 0 6px}
textarea{width:100%;height:48px;font:12px monospace}
ul.tree{list-style:none;padding-left:16px;margin:2px 0;font-family:monospace;font-size:12px}
li.hidden>span{color:#999;text-decoration:line-through}
li.diff>span{background:#fff3b0}
.why{color:#888;font-size:11px;margin-left:6px}
.wire{border:1px dashed #aaa;padding:6px;margin:6px 0;color:#666;font-size:12px}
.wire img{max-width:100%;max-height:480px}
.graph img{max-width:100%}
.diag{font:11px monospace;color:#a00;white-space:pre-wrap}
"""#

    static let script = #"""
'use strict';
// Everything from the project reaches the DOM as text: textContent, setAttribute, createElement.
const $ = (s, e = document) => e.querySelector(s);
// An element with attributes (`text`: its text content) and children. Attribute names are this
// script's own; values may come from the project and are set as values, never parsed.
function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
  }
  for (const k of kids) e.appendChild(typeof k === 'string' ? document.createTextNode(k) : k);
  return e;
}
function option(value, text) {
  const o = el('option', {text: text});
  o.value = value;
  return o;
}
const columns = [0, 1].map(i => {
  const s = el('section', {},
    el('h2', {}, 'user ', el('select', {class: 'profile'})),
    el('textarea', {class: 'attrs', placeholder: 'attributes as JSON, e.g. {"tier": "gold"} (empty: the profile)'}),
    el('div', {class: 'wire'}),
    el('div', {class: 'diag'}), el('ul', {class: 'tree root'}), el('div', {class: 'graph'}));
  $('#columns').appendChild(s);
  return s;
});
const results = [null, null];
// What identifies a node across the two columns: its id, else its action, else its kind and title.
const key = n => n.id || (n.action ? 'action:' + n.action : (n.type || n.kind) + ':' + ((n.props || {}).title || ''));
function visibleIds(node, out) {
  if (!node) return out;
  if (!node.hidden) out.add(key(node));
  for (const c of [...(node.children || []), ...(node.items || [])]) visibleIds(c, out);
  for (const h of [node.header, node.footer]) if (h) visibleIds(h, out);
  return out;
}
function render(node, other) {
  const title = (node.props || {}).title;
  const label = String(node.type || node.kind || '?') + (node.id ? ' #' + node.id : '') + (node.view ? '  ' + node.view : '') + (!node.id && title ? '  "' + title + '"' : '');
  const li = el('li', {}, el('span', {text: label}));
  if (node.hidden) { li.className = 'hidden'; li.appendChild(el('span', {class: 'why', text: node.reason || ''})); }
  else if (other && !other.has(key(node))) li.className = 'diff';
  const kids = [node.header, ...(node.children || []), ...(node.items || []), node.footer].filter(Boolean);
  if (kids.length) { const ul = el('ul', {class: 'tree'}); kids.forEach(k => ul.appendChild(render(k, other))); li.appendChild(ul); }
  return li;
}
async function load(i) {
  const col = columns[i], screen = $('#screen').value, profile = $('.profile', col).value;
  const attrs = $('.attrs', col).value.trim();
  const path = encodeURIComponent(screen);
  let r;
  if (attrs) r = await fetch(`/v1/screens/${path}?explain=1`, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({profile: profile || undefined, user: JSON.parse(attrs)})});
  else r = await fetch(`/v1/screens/${path}?explain=1` + (profile ? `&profile=${encodeURIComponent(profile)}` : ''));
  results[i] = await r.json();
  $('.wire', col).replaceChildren(attrs ? document.createTextNode('wireframe: for a profile (not for typed attributes)')
    : el('img', {alt: 'wireframe', src: `/v1/render/${path}${profile ? '?profile=' + encodeURIComponent(profile) : ''}`}));
  $('.graph', col).replaceChildren(el('img', {alt: 'graph', src: `/v1/graph/${path}?format=svg${profile ? '&profile=' + encodeURIComponent(profile) : ''}&t=${Date.now()}`}));
}
function draw() {
  const sets = results.map(r => r && r.tree ? visibleIds(r.tree, new Set()) : new Set());
  columns.forEach((col, i) => {
    const r = results[i], ul = $('.root', col);
    ul.replaceChildren();
    $('.diag', col).textContent = r ? (r.diagnostics || []).map(d => `${d.location || ''} ${d.severity}: ${d.message}`).join('\n') : '';
    if (r && r.tree) ul.appendChild(render(r.tree, sets[1 - i]));
    else if (r) $('.diag', col).textContent = JSON.stringify(r, null, 2);
  });
}
async function refresh() {
  try { await Promise.all([load(0), load(1)]); } catch (e) { $('#status').textContent = String(e); }
  draw();
  const st = await (await fetch('/v1/status')).json();
  $('#errors').style.display = st.errors.length ? 'block' : 'none';
  $('#errors').textContent = 'the project has errors; still serving the last good version:\n' + st.errors.join('\n');
  $('#status').textContent = 'version ' + st.version;
}
async function init() {
  const list = await (await fetch('/v1/screens')).json(), screens = list.screens;
  const picker = $('#screen');
  for (const s of screens) {
    const o = option(s.id, s.id);
    if (s.id === list.entry) o.selected = true;
    picker.appendChild(o);
  }
  const profiles = (await (await fetch('/v1/profiles')).json()).profiles;
  columns.forEach((col, i) => {
    const select = $('.profile', col);
    select.replaceChildren(option('', '(anonymous)'), ...profiles.map(p => option(p, p)));
    select.selectedIndex = Math.min(i + 1, profiles.length);
    select.onchange = refresh;
    $('.attrs', col).onchange = refresh;
  });
  picker.onchange = refresh;
  await refresh();
  // ?noevents: no live updates (a headless browser taking a screenshot waits for the network to idle).
  if (!location.search.includes('noevents')) new EventSource('/v1/events').addEventListener('reload', refresh);
}
init();
"""#
}

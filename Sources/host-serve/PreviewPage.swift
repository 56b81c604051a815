/// `GET /` of `host serve`: a self-contained page (no build step, no CDN) to pick a screen and
/// two profiles (or edited attributes), see each user's screen drawn as HTML at its laid-out
/// frames (`GET /v1/preview/{id}`) and tap through it as a prototype — a tap takes that user's
/// navigation step, both columns together with "link taps" (docs/serve.md, "The preview as a
/// prototype") — with each tree and its rule trace, the differences between them highlighted,
/// and each user's navigation graph; it refreshes on every reload (server-sent events from
/// `/v1/events`).
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
 <label title="a tap in one column is taken in both, to compare two users screen by screen"><input type="checkbox" id="linked" checked> link taps</label>
 <label>deep link <input id="link" size="28" placeholder="app://movie/42"></label> <button id="open-link">Open</button>
 <button id="restart">Restart</button>
 <span id="status"></span></header>
<div id="errors"></div>
<main id="columns"></main>
</body></html>
"""#

    static let css = #"""
body{font:14px system-ui,sans-serif;margin:0;color:#222}
header{padding:8px 12px;background:#1d3557;color:#fff;display:flex;gap:12px;align-items:center;flex-wrap:wrap}
header select,header input,header button{font:inherit}
#errors{display:none;background:#ffe3e3;color:#a00;padding:8px 12px;white-space:pre-wrap;font-family:monospace}
main{display:flex;gap:12px;padding:12px}
section{flex:1;min-width:0;border:1px solid #ccc;border-radius:6px;padding:8px}
section h2{font-size:15px;margin:0 0 6px}
textarea{width:100%;height:48px;font:12px monospace;box-sizing:border-box}
ul.tree{list-style:none;padding-left:16px;margin:2px 0;font-family:monospace;font-size:12px}
li.hidden>span{color:#999;text-decoration:line-through}
li.diff>span{background:#fff3b0}
.why{color:#888;font-size:11px;margin-left:6px}
.graph img{max-width:100%}
.diag{font:11px monospace;color:#a00;white-space:pre-wrap}
.bar{display:flex;gap:8px;align-items:center;margin:6px 0;font-size:12px}
.stack{font-family:monospace;color:#333}
.stopped{color:#a00;font-size:12px;min-height:16px;white-space:pre-wrap}
.frame{overflow:auto;margin:6px 0}
.phone{position:relative;overflow:hidden;background:#fff;border:1px solid #999;border-radius:4px;box-sizing:content-box}
.phone .n{position:absolute;box-sizing:border-box;margin:0;padding:0;pointer-events:none;background:none;border:0 solid transparent;overflow:hidden;font:inherit;color:inherit;text-align:left}
.phone button.n{pointer-events:auto;cursor:pointer}
.phone button.n:hover{outline:2px solid #ff9500;outline-offset:-2px}
.phone .r-screen,.phone .r-tab_bar,.phone .r-navigation,.phone .r-stack,.phone .r-vstack,.phone .r-hstack,.phone .r-container,.phone .r-collection{overflow:visible}
.phone .lines{position:absolute;left:0;right:0;top:50%;transform:translateY(-50%);white-space:pre}
.phone .block{position:absolute;left:12px;right:12px;top:50%;transform:translateY(-50%)}
.phone .block div{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.phone .t{font:15px 'DejaVu Sans',sans-serif;color:#000}
.phone .r-view .t{font-weight:bold;font-size:17px}
.phone .s{font:13px 'DejaVu Sans',sans-serif;color:#8E8E93}
.phone .img{position:absolute;left:4px;right:4px;top:50%;transform:translateY(-50%);text-align:center;font:11px 'DejaVu Sans',sans-serif;color:#3A3A3C}
.phone .navbar{position:absolute;left:0;right:0;top:0;background:#F9F9F9;border-bottom:0.5px solid #C6C6C8;box-sizing:border-box}
.phone .navtitle{position:absolute;left:16px;right:16px;bottom:0;height:44px;line-height:44px;text-align:center;font:bold 17px 'DejaVu Sans',sans-serif;color:#000;white-space:nowrap;overflow:hidden}
.phone .tabbar{position:absolute;left:0;right:0;bottom:0;background:#F9F9F9;border-top:0.5px solid #C6C6C8;display:flex;box-sizing:border-box}
.phone .tab{flex:1;min-width:0;text-align:center;font:10px 'DejaVu Sans',sans-serif;color:#8E8E93;padding-top:5px}
.phone .tab i{display:block;width:22px;height:22px;margin:0 auto 4px;border:1.5px solid currentColor;border-radius:5px;box-sizing:border-box}
.phone .tab.selected i{background:currentColor}
.phone .ctitle{position:absolute;left:0;bottom:100%;padding:0 4px;border-radius:3px;background:#30B0C7;color:#fff;font:bold 9px 'DejaVu Sans',sans-serif;white-space:nowrap;max-width:100%;overflow:hidden}
"""#

    static let script = #"""
'use strict';
// Everything from the project reaches the DOM as text: textContent, setAttribute, createElement;
// colours, sizes and fonts are set as CSS property values (element.style), never parsed as markup.
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
// The page's state, also in its address (?screen=home&taps=movie:42,back&taps2=…&link=…&unlinked):
// a reload or a shared address shows the same screens. `taps[i]`: the steps column i takes.
const params = new URLSearchParams(location.search);
const split = v => (v || '').split(',').map(s => s.trim()).filter(Boolean);
const state = {screen: params.get('screen') || '', link: params.get('link') || '', linked: !params.has('unlinked'),
  taps: [split(params.get('taps')), split(params.has('taps2') ? params.get('taps2') : params.get('taps'))],
  profiles: params.has('profiles') ? params.get('profiles').split(',') : null, device: params.get('device') || ''};
function remember() {
  const q = new URLSearchParams();
  for (const k of ['noevents', 'profiles', 'device']) if (params.has(k)) q.set(k, params.get(k));
  if (state.screen) q.set('screen', state.screen);
  if (state.link) q.set('link', state.link);
  if (state.taps[0].length) q.set('taps', state.taps[0].join(','));
  if (!state.linked) { q.set('unlinked', ''); if (state.taps[1].length) q.set('taps2', state.taps[1].join(',')); }
  history.replaceState(null, '', '?' + q.toString().replace(/=(&|$)/g, '$1'));
}
const columns = [0, 1].map(i => {
  const s = el('section', {'data-column': String(i)},
    el('h2', {}, 'user ', el('select', {class: 'profile'})),
    el('textarea', {class: 'attrs', placeholder: 'attributes as JSON, e.g. {"tier": "gold"} (empty: the profile)'}),
    el('div', {class: 'bar'}, el('button', {class: 'back', text: 'Back'}), el('span', {class: 'stack'})),
    el('div', {class: 'stopped'}),
    el('div', {class: 'frame'}, el('div', {class: 'phone'})),
    el('div', {class: 'diag'}), el('ul', {class: 'tree root'}), el('div', {class: 'graph'}));
  $('#columns').appendChild(s);
  return s;
});
const results = [null, null], previews = [null, null];
// The refresh a tap started (the ?click= replay waits for it).
let pending = Promise.resolve();
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
const px = v => (Number.isFinite(v) ? v : 0) + 'px';
// A button whose only text is "Back" and that has no action of its own pops, as the app's back button does.
const isBack = n => !n.action && n.role === 'button' && /^\s*back\s*$/i.test(((n.text && n.text.lines) || []).join(' ') || n.title || '');
// One laid-out node as an absolutely placed element at its frame; a node with an action (or a
// Back button) is a <button> that takes the step.
function drawNode(n, i) {
  // A state action (its JSON text, docs/data.md "State") is tapped by the node's id.
  const step = n.action ? (n.action.startsWith('{') ? (n.id ? 'tap:' + n.id : null) : n.action) : (isBack(n) ? 'back' : null);
  const d = el(step ? 'button' : 'div', {class: 'n r-' + n.role, 'data-path': n.path, 'data-role': n.role});
  if (n.id) d.setAttribute('data-id', n.id);
  if (step) { d.setAttribute('data-action', step); d.title = step; d.addEventListener('click', () => tap(i, step)); }
  const f = n.frame;
  d.style.left = px(f.x); d.style.top = px(f.y); d.style.width = px(f.width); d.style.height = px(f.height);
  if (n.fill) d.style.backgroundColor = n.fill;
  if (n.stroke) { d.style.borderStyle = 'solid'; d.style.borderColor = n.stroke; d.style.borderWidth = px(n.stroke_width); }
  if (n.radius) d.style.borderRadius = px(n.radius);
  if (n.text) {
    const t = n.text, box = el('div', {class: 'lines'});
    box.style.fontFamily = [...t.families, 'DejaVu Sans'].map(x => JSON.stringify(String(x))).join(', ') + ', sans-serif';
    box.style.fontSize = px(t.size); box.style.lineHeight = px(t.line_height); box.style.color = t.color;
    box.style.textAlign = t.align === 'center' ? 'center' : 'left';
    if (t.bold) box.style.fontWeight = 'bold';
    if (t.italic) box.style.fontStyle = 'italic';
    for (const line of t.lines) box.appendChild(el('div', {text: line}));
    d.appendChild(box);
  }
  if ((n.role === 'item' || n.role === 'view') && (n.title || n.subtitle)) {
    const b = el('div', {class: 'block'});
    if (f.width < 120) { b.style.left = '6px'; b.style.right = '6px'; }
    if (n.title) b.appendChild(el('div', {class: 't', text: n.title}));
    if (n.subtitle) b.appendChild(el('div', {class: 's', text: n.subtitle}));
    d.appendChild(b);
  }
  if (n.role === 'image' && n.image) d.appendChild(el('div', {class: 'img', text: n.image}));
  const layout = previews[i].layout, safe = layout.safe_area || {};
  if (n.role === 'navigation') {
    const bar = el('div', {class: 'navbar'});
    bar.style.height = px((safe.top || 0) + 44);
    if (n.title) bar.appendChild(el('div', {class: 'navtitle', text: n.title}));
    d.appendChild(bar);
  }
  if (n.role === 'tab_bar') {
    const bar = el('div', {class: 'tabbar'});
    bar.style.height = px(49 + (safe.bottom || 0));
    for (const t of n.tabs || []) {
      const tab = el('div', {class: t.selected ? 'tab selected' : 'tab'}, el('i', t.icon ? {'data-icon': t.icon} : {}), el('span', {text: t.title}));
      if (t.selected) tab.style.color = n.tint;
      bar.appendChild(tab);
    }
    d.appendChild(bar);
  }
  if (n.role === 'collection' && n.title) d.appendChild(el('div', {class: 'ctitle', text: n.title}));
  return d;
}
function drawPhone(i) {
  const col = columns[i], p = previews[i], phone = $('.phone', col);
  if (!p || !p.layout) { phone.replaceChildren(); return; }
  phone.style.width = px(p.layout.width); phone.style.height = px(p.layout.height);
  phone.setAttribute('data-screen', p.screen);
  phone.replaceChildren(...p.layout.nodes.map(n => drawNode(n, i)));
  $('.stack', col).textContent = p.stack;
  $('.stopped', col).textContent = p.stopped ? `stopped at '${p.stopped.input}': ${p.stopped.message}` : '';
  $('.back', col).disabled = p.depth <= 1 && !p.stopped;
}
// A tap: the step goes to this column, or to both with "link taps". A column that could not
// take its last step drops it on Back instead of popping (it stayed where it was).
function tap(i, step) {
  for (const k of state.linked ? [0, 1] : [i]) {
    const p = previews[k];
    if (step === 'back' && p && p.stopped && state.taps[k].length) state.taps[k].pop();
    else state.taps[k].push(step);
  }
  remember();
  pending = refresh(state.linked ? [0, 1] : [i]);
  return pending;
}
async function load(i) {
  const col = columns[i], profile = $('.profile', col).value;
  const attrs = $('.attrs', col).value.trim();
  const q = new URLSearchParams();
  if (profile) q.set('profile', profile);
  if (state.device) q.set('device', state.device);
  if (state.taps[i].length) q.set('steps', state.taps[i].join(','));
  if (state.link) q.set('link', state.link);
  const user = attrs ? JSON.parse(attrs) : null;
  const path = encodeURIComponent(state.screen);
  const r = await fetch(`/v1/preview/${path}?${q}`, user ? {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({profile: profile || undefined, user: user})} : {});
  previews[i] = await r.json();
  const p = previews[i];
  if (!p.layout) { results[i] = p; return; }
  // The tree and the graph of the screen the user is on, with the parameters it was opened with.
  const sq = new URLSearchParams({explain: '1'});
  if (profile) sq.set('profile', profile);
  for (const [k, v] of Object.entries(p.params || {})) sq.set('param.' + k, v);
  const screen = encodeURIComponent(p.screen);
  const t = await fetch(`/v1/screens/${screen}?${sq}`, user ? {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({profile: profile || undefined, user: user})} : {});
  results[i] = await t.json();
  $('.graph', col).replaceChildren(el('img', {alt: 'graph', src: `/v1/graph/${screen}?format=svg${profile ? '&profile=' + encodeURIComponent(profile) : ''}&t=${Date.now()}`}));
}
function draw() {
  const sets = results.map(r => r && r.tree ? visibleIds(r.tree, new Set()) : new Set());
  columns.forEach((col, i) => {
    const r = results[i], ul = $('.root', col);
    ul.replaceChildren();
    drawPhone(i);
    $('.diag', col).textContent = r ? (r.diagnostics || []).map(d => `${d.location || ''} ${d.severity}: ${d.message}`).join('\n') : '';
    if (r && r.tree) ul.appendChild(render(r.tree, sets[1 - i]));
    else if (r) $('.diag', col).textContent = JSON.stringify(r, null, 2);
  });
}
async function refresh(which = [0, 1]) {
  try { await Promise.all(which.map(load)); } catch (e) { $('#status').textContent = String(e); }
  draw();
  const st = await (await fetch('/v1/status')).json();
  $('#errors').style.display = st.errors.length ? 'block' : 'none';
  $('#errors').textContent = 'the project has errors; still serving the last good version:\n' + st.errors.join('\n');
  $('#status').textContent = 'version ' + st.version;
  document.body.setAttribute('data-ready', String(Number(document.body.getAttribute('data-ready') || 0) + 1));
}
async function init() {
  const list = await (await fetch('/v1/screens')).json(), screens = list.screens;
  const picker = $('#screen');
  if (!screens.some(s => s.id === state.screen)) state.screen = list.entry || (screens[0] || {}).id || '';
  for (const s of screens) {
    const o = option(s.id, s.id);
    if (s.id === state.screen) o.selected = true;
    picker.appendChild(o);
  }
  const profiles = (await (await fetch('/v1/profiles')).json()).profiles;
  columns.forEach((col, i) => {
    const select = $('.profile', col);
    select.replaceChildren(option('', '(anonymous)'), ...profiles.map(p => option(p, p)));
    // The first two profiles of users.json, unless the address names others.
    const wanted = state.profiles ? state.profiles[i] : profiles[i];
    select.selectedIndex = wanted !== undefined && profiles.includes(wanted) ? profiles.indexOf(wanted) + 1 : Math.min(i + 1, profiles.length);
    select.onchange = () => refresh([i]);
    $('.attrs', col).onchange = () => refresh([i]);
    $('.back', col).onclick = () => tap(i, 'back');
  });
  const restart = () => { state.taps = [[], []]; remember(); return refresh(); };
  picker.onchange = () => { state.screen = picker.value; state.link = ''; $('#link').value = ''; restart(); };
  $('#linked').checked = state.linked;
  // Linking copies the left column's taps to the right one, so both show the same walk.
  $('#linked').onchange = () => {
    state.linked = $('#linked').checked;
    remember();
    if (state.linked) { state.taps[1] = [...state.taps[0]]; remember(); refresh(); }
  };
  $('#link').value = state.link;
  const open = () => { state.link = $('#link').value.trim(); restart(); };
  $('#open-link').onclick = open;
  $('#link').onkeydown = e => { if (e.key === 'Enter') open(); };
  $('#restart').onclick = () => { state.link = ''; $('#link').value = ''; restart(); };
  await refresh();
  // ?click=movie:42,back: click those buttons of the left column in turn, as a user would (tests).
  for (const step of split(params.get('click'))) {
    const b = [...columns[0].querySelectorAll('.phone button')].find(x => x.getAttribute('data-action') === step)
      || (step === 'back' ? $('.back', columns[0]) : null);
    if (!b) { $('#status').textContent = `no button for '${step}' in the left column`; break; }
    b.click();
    await new Promise(r => setTimeout(r, 0));
    await pending;
  }
  // ?noevents: no live updates (a headless browser taking a screenshot waits for the network to idle).
  if (!params.has('noevents')) new EventSource('/v1/events').addEventListener('reload', () => refresh());
}
init();
"""#
}

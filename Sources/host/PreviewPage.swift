/// `GET /` of `host serve`: a self-contained page (no build step, no CDN) to pick a screen and
/// two profiles (or edited attributes), see each tree with the rule trace, the differences
/// between them highlighted, and each user's navigation graph; it refreshes on every reload
/// (server-sent events from `/v1/events`).
enum PreviewPage {
    static let html = #"""
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Loom preview</title>
<style>
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
.graph img{max-width:100%}
.diag{font:11px monospace;color:#a00;white-space:pre-wrap}
</style></head>
<body>
<header><b>Loom preview</b>
 <label>screen <select id="screen"></select></label>
 <span id="status"></span></header>
<div id="errors"></div>
<main id="columns"></main>
<script>
const $ = (s, e = document) => e.querySelector(s);
const columns = [0, 1].map(i => {
  const s = document.createElement('section');
  s.innerHTML = `<h2>user <select class="profile"></select></h2>
    <textarea class="attrs" placeholder='attributes as JSON, e.g. {"tier": "gold"} (empty: the profile)'></textarea>
    <div class="wire"></div>
    <div class="diag"></div><ul class="tree root"></ul><div class="graph"></div>`;
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
  const li = document.createElement('li');
  const title = (node.props || {}).title;
  const label = (node.type || node.kind || '?') + (node.id ? ' #' + node.id : '') + (node.view ? '  ' + node.view : '') + (!node.id && title ? '  "' + title + '"' : '');
  li.innerHTML = '<span></span>';
  li.firstChild.textContent = label;
  if (node.hidden) { li.className = 'hidden'; const w = document.createElement('span'); w.className = 'why'; w.textContent = node.reason || ''; li.appendChild(w); }
  else if (other && !other.has(key(node))) li.className = 'diff';
  const kids = [node.header, ...(node.children || []), ...(node.items || []), node.footer].filter(Boolean);
  if (kids.length) { const ul = document.createElement('ul'); ul.className = 'tree'; kids.forEach(k => ul.appendChild(render(k, other))); li.appendChild(ul); }
  return li;
}
async function load(i) {
  const col = columns[i], screen = $('#screen').value, profile = $('.profile', col).value;
  const attrs = $('.attrs', col).value.trim();
  let r;
  if (attrs) r = await fetch(`/v1/screens/${encodeURIComponent(screen)}?explain=1`, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({profile: profile || undefined, user: JSON.parse(attrs)})});
  else r = await fetch(`/v1/screens/${encodeURIComponent(screen)}?explain=1` + (profile ? `&profile=${encodeURIComponent(profile)}` : ''));
  results[i] = await r.json();
  $('.wire', col).innerHTML = attrs ? 'wireframe: for a profile (not for typed attributes)' : `<img alt="wireframe" style="max-width:100%;max-height:480px" src="/v1/render/${encodeURIComponent(screen)}${profile ? '?profile=' + encodeURIComponent(profile) : ''}">`;
  $('.graph', col).innerHTML = `<img alt="graph" src="/v1/graph/${encodeURIComponent(screen)}?format=svg${profile ? '&profile=' + encodeURIComponent(profile) : ''}&t=${Date.now()}">`;
}
function draw() {
  const sets = results.map(r => r && r.tree ? visibleIds(r.tree, new Set()) : new Set());
  columns.forEach((col, i) => {
    const r = results[i], ul = $('.root', col);
    ul.innerHTML = '';
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
  $('#screen').innerHTML = screens.map(s => `<option${s.id === list.entry ? ' selected' : ''}>${s.id}</option>`).join('');
  const profiles = (await (await fetch('/v1/profiles')).json()).profiles;
  columns.forEach((col, i) => {
    $('.profile', col).innerHTML = '<option value="">(anonymous)</option>' + profiles.map(p => `<option>${p}</option>`).join('');
    $('.profile', col).selectedIndex = Math.min(i + 1, profiles.length);
    $('.profile', col).onchange = refresh;
    $('.attrs', col).onchange = refresh;
  });
  $('#screen').onchange = refresh;
  await refresh();
  // ?noevents: no live updates (a headless browser taking a screenshot waits for the network to idle).
  if (!location.search.includes('noevents')) new EventSource('/v1/events').addEventListener('reload', refresh);
}
init();
</script></body></html>
"""#
}

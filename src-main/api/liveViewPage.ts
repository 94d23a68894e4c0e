/** What the live-view page needs to know; embedded in the page as JSON. */
export interface LiveViewPageConfig {
  title: string;
  framesUrl: string;
  inputUrl: string;
  interactive: boolean;
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch);

// `<` escaped so no string in the config can close the script element.
const embedJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

/** Content-Security-Policy of the page: it loads nothing from anywhere and talks only to this server. */
export const LIVE_VIEW_CSP =
  "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'self'; base-uri 'none'; form-action 'none'";

/** Headers of a live-view page: framable by the console (same origin) only, never sniffed, never cached. */
export const LIVE_VIEW_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': LIVE_VIEW_CSP,
  'x-frame-options': 'SAMEORIGIN',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const STYLE = `
*{box-sizing:border-box}
html,body{height:100%;margin:0}
body{display:grid;grid-template-rows:auto 1fr auto;background:#16181d;color:#e6e8eb;font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif}
header,footer{display:flex;align-items:center;gap:12px;padding:8px 14px;background:#1f2228}
header h1{font-size:15px;font-weight:600;margin:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.status{display:flex;align-items:center;gap:6px;font-size:12px;color:#aab0b8;text-transform:uppercase;letter-spacing:.04em}
.dot{width:9px;height:9px;border-radius:50%;background:#c9a227}
body[data-state=live] .dot{background:#2fbf71;box-shadow:0 0 6px #2fbf71}
body[data-state=ended] .dot{background:#7a7f87}
main{position:relative;min-height:0;display:flex;align-items:center;justify-content:center;padding:10px;overflow:hidden}
#screen{max-width:100%;max-height:100%;object-fit:contain;background:#000;outline:none;box-shadow:0 2px 14px rgba(0,0,0,.5);cursor:default;user-select:none;-webkit-user-drag:none}
#screen:not([src]){display:none}
#screen:focus{box-shadow:0 0 0 2px #4c8dff,0 2px 14px rgba(0,0,0,.5)}
#note{position:absolute;color:#aab0b8}
body[data-state=live] #note{display:none}
form{display:flex;gap:8px;flex:1}
input[type=text]{flex:1;max-width:520px;padding:6px 9px;border-radius:6px;border:1px solid #3a3f47;background:#111317;color:inherit}
button{padding:6px 14px;border-radius:6px;border:0;background:#4c8dff;color:#fff;font-weight:600;cursor:pointer}
button:disabled,input:disabled{opacity:.45;cursor:default}
.hint{color:#7a7f87;font-size:12px}
#browser-nav{display:flex;align-items:center;gap:6px;flex:1;min-width:0}
#browser-nav button.icon{padding:6px 10px;background:#2a2e36}
#address-form{flex:1;min-width:0}
#address{max-width:none}
#nav-note{color:#ffb4a8;font-size:12px}
`;

// Runs in the viewer's browser: frames in over SSE, input out as one ordered queue of POSTs.
const SCRIPT = `
const config = JSON.parse(document.getElementById('config').textContent);
const screen = document.getElementById('screen');
const statusText = document.getElementById('status-text');
const note = document.getElementById('note');
let frame = null;
let ended = false;

function setState(state) {
  if (ended) return;
  document.body.dataset.state = state;
  statusText.textContent = state;
  if (state === 'ended') {
    ended = true;
    note.textContent = 'This live view has ended.';
    for (const el of document.querySelectorAll('input,button')) el.disabled = true;
  }
}

const events = new EventSource(config.framesUrl);
events.addEventListener('frame', (e) => {
  frame = JSON.parse(e.data);
  screen.src = 'data:image/' + frame.format + ';base64,' + frame.data;
  setState('live');
});
events.addEventListener('end', () => { events.close(); setState('ended'); });
// A dropped stream (the service stopped or restarted) is not live any more until frames come again.
events.onerror = () => {
  if (events.readyState === EventSource.CLOSED) { setState('ended'); return; }
  setState('reconnecting');
  note.textContent = 'Reconnecting to Portico…';
};

// The browser's own controls: back, reload and an address bar; the address follows the page.
const address = document.getElementById('address');
const navNote = document.getElementById('nav-note');
async function navigate(body) {
  if (!config.interactive || ended) return;
  try {
    const response = await fetch(config.inputUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'navigation', ...body }) });
    if (response.status === 404) { setState('ended'); return; }
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) { navNote.textContent = typeof answer.detail === 'string' ? answer.detail : 'The browser did not go there.'; return; }
    if (body.action !== 'where') navNote.textContent = '';
    if (typeof answer.url === 'string' && document.activeElement !== address) address.value = answer.url === 'about:blank' ? '' : answer.url;
  } catch { /* the server went away; the frames stream reports it */ }
}
document.getElementById('nav-back').addEventListener('click', () => navigate({ action: 'back' }));
document.getElementById('nav-reload').addEventListener('click', () => navigate({ action: 'reload' }));
// Enter in the field submits the form; Go does the same (a plain button, so the typing form keeps the page's one submit button).
document.getElementById('address-go').addEventListener('click', () => document.getElementById('address-form').requestSubmit());
document.getElementById('address-form').addEventListener('submit', (e) => {
  e.preventDefault();
  let url = address.value.trim();
  if (url === '') return;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) url = 'https://' + url;
  address.blur();
  navigate({ action: 'goto', url });
});
setInterval(() => { if (document.body.dataset.state === 'live' && document.activeElement !== address) navigate({ action: 'where' }); }, 1500);

const queue = [];
let sending = false;
function send(input) {
  if (!config.interactive || ended || !frame) return;
  const last = queue[queue.length - 1];
  // A newer pointer position makes an unsent one pointless.
  if (input.type === 'mouseMoved' && last && last.type === 'mouseMoved') queue[queue.length - 1] = input;
  else queue.push(input);
  pump();
}
async function pump() {
  if (sending) return;
  sending = true;
  while (queue.length > 0) {
    const input = queue.shift();
    try {
      const response = await fetch(config.inputUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
      if (response.status === 404) setState('ended');
    } catch { /* the server went away; the frames stream reports the end */ }
  }
  sending = false;
}

// Client point → page CSS pixels, allowing for the letterboxing of object-fit: contain.
function toPage(e) {
  const r = screen.getBoundingClientRect();
  const ratio = screen.naturalWidth / screen.naturalHeight || frame.deviceWidth / frame.deviceHeight;
  const width = Math.min(r.width, r.height * ratio);
  const height = width / ratio;
  const left = r.left + (r.width - width) / 2;
  const top = r.top + (r.height - height) / 2;
  return {
    x: Math.round(Math.min(Math.max((e.clientX - left) / width, 0), 1) * frame.deviceWidth),
    y: Math.round(Math.min(Math.max((e.clientY - top) / height, 0), 1) * frame.deviceHeight),
  };
}
function modifiers(e) { return (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0); }
const BUTTONS = ['left', 'middle', 'right', 'back', 'forward'];

screen.addEventListener('mousedown', (e) => {
  e.preventDefault();
  screen.focus();
  send({ kind: 'mouse', type: 'mousePressed', ...toPage(e), button: BUTTONS[e.button] || 'left', buttons: e.buttons, clickCount: Math.min(e.detail || 1, 3), modifiers: modifiers(e) });
});
screen.addEventListener('mouseup', (e) => {
  send({ kind: 'mouse', type: 'mouseReleased', ...toPage(e), button: BUTTONS[e.button] || 'left', buttons: e.buttons, clickCount: Math.min(e.detail || 1, 3), modifiers: modifiers(e) });
});
let lastMove = 0;
let moveTimer = null;
screen.addEventListener('mousemove', (e) => {
  const input = { kind: 'mouse', type: 'mouseMoved', ...toPage(e), buttons: e.buttons, modifiers: modifiers(e) };
  clearTimeout(moveTimer);
  const wait = 40 - (Date.now() - lastMove);
  if (wait <= 0) { lastMove = Date.now(); send(input); }
  else moveTimer = setTimeout(() => { lastMove = Date.now(); send(input); }, wait);
});
let wheel = null;
screen.addEventListener('wheel', (e) => {
  e.preventDefault();
  const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
  if (!wheel) {
    wheel = { kind: 'wheel', ...toPage(e), deltaX: 0, deltaY: 0, modifiers: modifiers(e) };
    requestAnimationFrame(() => { const input = wheel; wheel = null; send(input); });
  }
  wheel.deltaX += e.deltaX * unit;
  wheel.deltaY += e.deltaY * unit;
}, { passive: false });
screen.addEventListener('contextmenu', (e) => e.preventDefault());

function keyText(e) {
  if (e.ctrlKey || e.metaKey) return undefined;
  if (e.key === 'Enter') return '\\r';
  return e.key.length === 1 ? e.key : undefined;
}
for (const type of ['keydown', 'keyup']) {
  screen.addEventListener(type, (e) => {
    if (e.isComposing) return;
    e.preventDefault();
    const text = type === 'keydown' ? keyText(e) : undefined;
    send({ kind: 'key', type: type === 'keydown' ? 'keyDown' : 'keyUp', key: e.key.slice(0, 32), code: e.code.slice(0, 32), keyCode: e.keyCode & 255, modifiers: modifiers(e), ...(text ? { text } : {}) });
  });
}
screen.addEventListener('paste', (e) => {
  const text = e.clipboardData && e.clipboardData.getData('text');
  if (text) { e.preventDefault(); send({ kind: 'text', text }); }
});

document.getElementById('type-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const field = document.getElementById('type-text');
  if (field.value) send({ kind: 'text', text: field.value });
  field.value = '';
  screen.focus();
});
if (!config.interactive) for (const el of document.querySelectorAll('input,button')) el.disabled = true;
`;

/** The live-view page: a browser's screen streamed as images, with mouse and keyboard forwarded to it. */
export function liveViewPage(config: LiveViewPageConfig): string {
  const hint = config.interactive
    ? 'Click the screen to control the browser; keys go to it while it has focus.'
    : 'View only.';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(config.title)} · Portico live view</title>
<style>${STYLE}</style>
</head>
<body data-state="connecting">
<header>
<span class="status"><span class="dot"></span><span id="status-text">connecting</span></span>
<h1>${escapeHtml(config.title)}</h1>
${
  config.interactive
    ? `<nav id="browser-nav" aria-label="Browser">
<button type="button" class="icon" id="nav-back" aria-label="Back" title="Back">&#8592;</button>
<button type="button" class="icon" id="nav-reload" aria-label="Reload" title="Reload">&#8635;</button>
<form id="address-form" autocomplete="off"><input id="address" type="text" inputmode="url" aria-label="Address" placeholder="Type an address, e.g. https://example.org/login"><button type="button" id="address-go">Go</button></form>
<span id="nav-note" role="status"></span>
</nav>`
    : '<span id="nav-note" hidden></span><input id="address" hidden><form id="address-form" hidden></form><button type="button" id="address-go" hidden></button><button type="button" id="nav-back" hidden></button><button type="button" id="nav-reload" hidden></button>'
}
</header>
<main>
<img id="screen" tabindex="0" alt="Live browser screen" draggable="false">
<div id="note">Waiting for the browser's screen…</div>
</main>
<footer>
<form id="type-form" autocomplete="off">
<input id="type-text" type="text" placeholder="Type text into the page (paste here, then Send)" aria-label="Text to type">
<button type="submit">Send</button>
</form>
<span class="hint">${hint}</span>
</footer>
<script id="config" type="application/json">${embedJson(config)}</script>
<script>${SCRIPT}</script>
</body>
</html>`;
}

import { createHash } from 'node:crypto';

import { type LiveViewConfig, liveViewPageScript, liveViewStyle } from '../agent/injected/index.ts';

/** What the live-view page needs to know; embedded in the page as JSON (a data block: no script runs it). */
export type LiveViewPageConfig = LiveViewConfig;

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch);

// `<` escaped so no string in the config can close the script element.
const embedJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

// The page's one script and style sheet go in as they are: neither may close its element early.
if (/<\/(script|style)/i.test(liveViewPageScript + liveViewStyle))
  throw new Error('the live-view script or style sheet holds a closing tag; it cannot be inlined');

/** `'sha256-…'` of an inline script's or style sheet's exact text, for the CSP. */
const hashOf = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * Content-Security-Policy of the page: it loads nothing from anywhere and talks only to this server.
 * Its one script and one style sheet (agent/injected/liveView.ts and liveView.css, bundled by
 * scripts/build-injected.mjs) are allowed by their hashes: nothing else inline runs, no `unsafe-inline`.
 */
export const LIVE_VIEW_CSP = `default-src 'none'; img-src data:; style-src ${hashOf(liveViewStyle)}; script-src ${hashOf(liveViewPageScript)}; connect-src 'self'; frame-ancestors 'self'; base-uri 'none'; form-action 'none'`;

/** Headers of a live-view page: framable by the console (same origin) only, never sniffed, never cached. */
export const LIVE_VIEW_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': LIVE_VIEW_CSP,
  'x-frame-options': 'SAMEORIGIN',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

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
<style>${liveViewStyle}</style>
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
<script>${liveViewPageScript}</script>
</body>
</html>`;
}

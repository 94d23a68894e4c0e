// Runs in the viewer's browser, on the live-view page (api/liveViewPage.ts serves it with a CSP that
// allows this script by its hash and nothing inline else): frames in over SSE, input out as one
// ordered queue of POSTs, and the browser's own controls (back, reload, address bar).
import type { LiveViewConfig } from './scanTypes.ts';

/** One frame of the stream (contract/liveView.ts LiveFrame: only what the page reads). */
interface Frame {
  format: string;
  data: string;
  deviceWidth: number;
  deviceHeight: number;
}

type Input = { kind: string; type?: string; [key: string]: unknown };

const BUTTONS = ['left', 'middle', 'right', 'back', 'forward'];

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`live view: no #${id}`);
  return el as T;
}

function modifiers(e: MouseEvent | KeyboardEvent | WheelEvent): number {
  return (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
}

function keyText(e: KeyboardEvent): string | undefined {
  if (e.ctrlKey || e.metaKey) return undefined;
  if (e.key === 'Enter') return '\r';
  return e.key.length === 1 ? e.key : undefined;
}

function disableControls(): void {
  for (const el of Array.from(document.querySelectorAll<HTMLInputElement | HTMLButtonElement>('input,button')))
    el.disabled = true;
}

export default function liveView(): void {
  const config = JSON.parse(byId('config').textContent ?? '{}') as LiveViewConfig;
  const screen = byId<HTMLImageElement>('screen');
  const statusText = byId('status-text');
  const note = byId('note');
  let frame: Frame | null = null;
  let ended = false;

  const setState = (state: 'live' | 'reconnecting' | 'ended'): void => {
    if (ended) return;
    document.body.dataset.state = state;
    statusText.textContent = state;
    if (state === 'ended') {
      ended = true;
      note.textContent = 'This live view has ended.';
      disableControls();
    }
  };

  const events = new EventSource(config.framesUrl);
  events.addEventListener('frame', (e) => {
    frame = JSON.parse((e as MessageEvent<string>).data) as Frame;
    screen.src = `data:image/${frame.format};base64,${frame.data}`;
    setState('live');
  });
  events.addEventListener('end', () => {
    events.close();
    setState('ended');
  });
  // A dropped stream (the service stopped or restarted) is not live any more until frames come again.
  events.onerror = () => {
    if (events.readyState === EventSource.CLOSED) {
      setState('ended');
      return;
    }
    setState('reconnecting');
    note.textContent = 'Reconnecting to Portico…';
  };

  const post = (body: unknown): Promise<Response> =>
    fetch(config.inputUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  // The browser's own controls: back, reload and an address bar; the address follows the page.
  const address = byId<HTMLInputElement>('address');
  const navNote = byId('nav-note');
  // Each user action (goto, back, reload) gets a number; an answer to an older action or to a `where`
  // sent before the newest action is stale (a slow reload must not clear the note of a refused goto).
  let latestAction = 0;
  const navigate = async (body: { action: string; url?: string }): Promise<void> => {
    if (!config.interactive || ended) return;
    const mine = body.action === 'where' ? latestAction : ++latestAction;
    try {
      const response = await post({ kind: 'navigation', ...body });
      if (response.status === 404) {
        setState('ended');
        return;
      }
      const answer = (await response.json().catch(() => ({}))) as { detail?: unknown; url?: unknown };
      if (mine !== latestAction) return;
      if (!response.ok) {
        navNote.textContent = typeof answer.detail === 'string' ? answer.detail : 'The browser did not go there.';
        return;
      }
      if (body.action !== 'where') navNote.textContent = '';
      if (typeof answer.url === 'string' && document.activeElement !== address)
        address.value = answer.url === 'about:blank' ? '' : answer.url;
    } catch {
      // The server went away; the frames stream reports it.
    }
  };
  byId('nav-back').addEventListener('click', () => void navigate({ action: 'back' }));
  byId('nav-reload').addEventListener('click', () => void navigate({ action: 'reload' }));
  const addressForm = byId<HTMLFormElement>('address-form');
  // Enter in the field submits the form; Go does the same (a plain button, so the typing form keeps the page's one submit button).
  byId('address-go').addEventListener('click', () => addressForm.requestSubmit());
  addressForm.addEventListener('submit', (e) => {
    e.preventDefault();
    let url = address.value.trim();
    if (url === '') return;
    if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) url = `https://${url}`;
    address.blur();
    void navigate({ action: 'goto', url });
  });
  setInterval(() => {
    if (document.body.dataset.state === 'live' && document.activeElement !== address)
      void navigate({ action: 'where' });
  }, 1500);

  const queue: Input[] = [];
  let sending = false;
  const pump = async (): Promise<void> => {
    if (sending) return;
    sending = true;
    for (let input = queue.shift(); input !== undefined; input = queue.shift()) {
      try {
        const response = await post(input);
        if (response.status === 404) setState('ended');
      } catch {
        // The server went away; the frames stream reports the end.
      }
    }
    sending = false;
  };
  const send = (input: Input): void => {
    if (!config.interactive || ended || !frame) return;
    const last = queue[queue.length - 1];
    // A newer pointer position makes an unsent one pointless.
    if (input.type === 'mouseMoved' && last && last.type === 'mouseMoved') queue[queue.length - 1] = input;
    else queue.push(input);
    void pump();
  };

  // Client point → page CSS pixels, allowing for the letterboxing of object-fit: contain.
  const toPage = (e: MouseEvent): { x: number; y: number } => {
    const shown = frame as Frame;
    const r = screen.getBoundingClientRect();
    const ratio = screen.naturalWidth / screen.naturalHeight || shown.deviceWidth / shown.deviceHeight;
    const width = Math.min(r.width, r.height * ratio);
    const height = width / ratio;
    const left = r.left + (r.width - width) / 2;
    const top = r.top + (r.height - height) / 2;
    return {
      x: Math.round(Math.min(Math.max((e.clientX - left) / width, 0), 1) * shown.deviceWidth),
      y: Math.round(Math.min(Math.max((e.clientY - top) / height, 0), 1) * shown.deviceHeight),
    };
  };
  const button = (e: MouseEvent) => ({
    ...toPage(e),
    button: BUTTONS[e.button] ?? 'left',
    buttons: e.buttons,
    clickCount: Math.min(e.detail || 1, 3),
    modifiers: modifiers(e),
  });

  screen.addEventListener('mousedown', (e) => {
    e.preventDefault();
    screen.focus();
    if (frame) send({ kind: 'mouse', type: 'mousePressed', ...button(e) });
  });
  screen.addEventListener('mouseup', (e) => {
    if (frame) send({ kind: 'mouse', type: 'mouseReleased', ...button(e) });
  });
  let lastMove = 0;
  let moveTimer: ReturnType<typeof setTimeout> | undefined;
  screen.addEventListener('mousemove', (e) => {
    if (!frame) return;
    const input = { kind: 'mouse', type: 'mouseMoved', ...toPage(e), buttons: e.buttons, modifiers: modifiers(e) };
    clearTimeout(moveTimer);
    const wait = 40 - (Date.now() - lastMove);
    const go = (): void => {
      lastMove = Date.now();
      send(input);
    };
    if (wait <= 0) go();
    else moveTimer = setTimeout(go, wait);
  });
  let wheel: { kind: 'wheel'; x: number; y: number; deltaX: number; deltaY: number; modifiers: number } | null = null;
  screen.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault();
      if (!frame) return;
      const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
      if (!wheel) {
        const pending = { kind: 'wheel' as const, ...toPage(e), deltaX: 0, deltaY: 0, modifiers: modifiers(e) };
        wheel = pending;
        requestAnimationFrame(() => {
          wheel = null;
          send(pending);
        });
      }
      wheel.deltaX += e.deltaX * unit;
      wheel.deltaY += e.deltaY * unit;
    },
    { passive: false },
  );
  screen.addEventListener('contextmenu', (e) => e.preventDefault());

  for (const type of ['keydown', 'keyup'] as const) {
    screen.addEventListener(type, (e) => {
      if (e.isComposing) return;
      e.preventDefault();
      const text = type === 'keydown' ? keyText(e) : undefined;
      send({
        kind: 'key',
        type: type === 'keydown' ? 'keyDown' : 'keyUp',
        key: e.key.slice(0, 32),
        code: e.code.slice(0, 32),
        keyCode: e.keyCode & 255,
        modifiers: modifiers(e),
        ...(text ? { text } : {}),
      });
    });
  }
  screen.addEventListener('paste', (e) => {
    const text = e.clipboardData?.getData('text');
    if (text) {
      e.preventDefault();
      send({ kind: 'text', text });
    }
  });

  byId('type-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const field = byId<HTMLInputElement>('type-text');
    if (field.value) send({ kind: 'text', text: field.value });
    field.value = '';
    screen.focus();
  });
  if (!config.interactive) disableControls();
}

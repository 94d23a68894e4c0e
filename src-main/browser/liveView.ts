import type { CDPSession, Page } from 'playwright-core';

import { Emitter, type Disposable, type Listener } from '../base/emitter.ts';

/** One screencast image and the viewport geometry needed to map clicks on it back to the page. */
export interface ScreencastFrame {
  /** Base64 image in the requested format. */
  data: string;
  format: 'jpeg' | 'png';
  /** Page size in CSS pixels the frame shows; input coordinates are in this space. */
  deviceWidth: number;
  deviceHeight: number;
  pageScaleFactor: number;
  offsetTop: number;
  scrollOffsetX: number;
  scrollOffsetY: number;
  timestamp: number | undefined;
}

export interface ScreencastOptions {
  format?: 'jpeg' | 'png';
  /** JPEG quality 0..100; default 70. */
  quality?: number;
  maxWidth?: number;
  maxHeight?: number;
  everyNthFrame?: number;
}

export type MouseButton = 'none' | 'left' | 'middle' | 'right' | 'back' | 'forward';

/** A pointer event from the live-view page, in page CSS pixels. `modifiers`: Alt=1, Ctrl=2, Meta=4, Shift=8. */
export interface MouseInput {
  type: 'mousePressed' | 'mouseReleased' | 'mouseMoved';
  x: number;
  y: number;
  button?: MouseButton;
  /** Bitmask of buttons held: left=1, right=2, middle=4. */
  buttons?: number;
  clickCount?: number;
  modifiers?: number;
}

export interface WheelInput {
  x: number;
  y: number;
  deltaX: number;
  deltaY: number;
  modifiers?: number;
}

/** A key event; printable keys need `text` on keyDown for a character to appear. */
export interface KeyInput {
  type: 'keyDown' | 'keyUp' | 'rawKeyDown' | 'char';
  key?: string;
  code?: string;
  text?: string;
  windowsVirtualKeyCode?: number;
  modifiers?: number;
}

/**
 * A page's live view over CDP: screencast frames out (each acknowledged, which is what makes
 * Chromium send the next), mouse, wheel and keyboard input in.
 */
export class LiveView {
  readonly #session: CDPSession;
  readonly #frames = new Emitter<ScreencastFrame>();
  #stopped = false;

  private constructor(session: CDPSession) {
    this.#session = session;
  }

  /** Attaches to `page` and starts its screencast. */
  static async start(page: Page, options: ScreencastOptions = {}): Promise<LiveView> {
    const session = await page.context().newCDPSession(page);
    const format = options.format ?? 'jpeg';
    const view = new LiveView(session);
    session.on('Page.screencastFrame', (frame) => {
      if (view.#stopped) return;
      view.#frames.fire({
        data: frame.data,
        format,
        deviceWidth: frame.metadata.deviceWidth,
        deviceHeight: frame.metadata.deviceHeight,
        pageScaleFactor: frame.metadata.pageScaleFactor,
        offsetTop: frame.metadata.offsetTop,
        scrollOffsetX: frame.metadata.scrollOffsetX,
        scrollOffsetY: frame.metadata.scrollOffsetY,
        timestamp: frame.metadata.timestamp,
      });
      // The page may close between a frame and its ack; a lost ack is harmless then.
      session.send('Page.screencastFrameAck', { sessionId: frame.sessionId }).catch(() => undefined);
    });
    await session.send('Page.startScreencast', {
      format,
      ...(format === 'jpeg' ? { quality: options.quality ?? 70 } : {}),
      ...(options.maxWidth !== undefined ? { maxWidth: options.maxWidth } : {}),
      ...(options.maxHeight !== undefined ? { maxHeight: options.maxHeight } : {}),
      everyNthFrame: options.everyNthFrame ?? 1,
    });
    return view;
  }

  onDidFrame(listener: Listener<ScreencastFrame>): Disposable {
    return this.#frames.event(listener);
  }

  async dispatchMouse(input: MouseInput): Promise<void> {
    await this.#session.send('Input.dispatchMouseEvent', {
      type: input.type,
      x: input.x,
      y: input.y,
      button: input.button ?? (input.type === 'mouseMoved' ? 'none' : 'left'),
      ...(input.buttons !== undefined ? { buttons: input.buttons } : {}),
      clickCount: input.clickCount ?? (input.type === 'mouseMoved' ? 0 : 1),
      modifiers: input.modifiers ?? 0,
    });
  }

  /** Move, press and release at one point: what a click on the live view means. */
  async click(x: number, y: number, button: MouseButton = 'left'): Promise<void> {
    await this.dispatchMouse({ type: 'mouseMoved', x, y });
    await this.dispatchMouse({ type: 'mousePressed', x, y, button, clickCount: 1 });
    await this.dispatchMouse({ type: 'mouseReleased', x, y, button, clickCount: 1 });
  }

  async dispatchWheel(input: WheelInput): Promise<void> {
    await this.#session.send('Input.dispatchMouseEvent', {
      type: 'mouseWheel',
      x: input.x,
      y: input.y,
      deltaX: input.deltaX,
      deltaY: input.deltaY,
      modifiers: input.modifiers ?? 0,
    });
  }

  async dispatchKey(input: KeyInput): Promise<void> {
    await this.#session.send('Input.dispatchKeyEvent', {
      type: input.type,
      modifiers: input.modifiers ?? 0,
      ...(input.key !== undefined ? { key: input.key } : {}),
      ...(input.code !== undefined ? { code: input.code } : {}),
      ...(input.text !== undefined ? { text: input.text, unmodifiedText: input.text } : {}),
      ...(input.windowsVirtualKeyCode !== undefined ? { windowsVirtualKeyCode: input.windowsVirtualKeyCode } : {}),
    });
  }

  /** Where the page is now (its current history entry), or '' before the first navigation. */
  async currentUrl(): Promise<string> {
    const history = await this.#session.send('Page.getNavigationHistory');
    return history.entries[history.currentIndex]?.url ?? '';
  }

  /**
   * The browser's own controls: open `url`, go one entry back or forward in the page's history (nothing
   * when there is none), or reload. Resolves the page's address afterwards.
   */
  async navigate(action: 'goto' | 'back' | 'forward' | 'reload', url?: string): Promise<string> {
    if (action === 'goto') {
      if (url === undefined) throw new Error('goto needs a url');
      const { errorText } = await this.#session.send('Page.navigate', { url });
      if (errorText) throw new Error(`could not open ${url}: ${errorText}`);
    } else if (action === 'reload') {
      await this.#session.send('Page.reload', {});
    } else {
      const history = await this.#session.send('Page.getNavigationHistory');
      const entry = history.entries[history.currentIndex + (action === 'back' ? -1 : 1)];
      if (entry) await this.#session.send('Page.navigateToHistoryEntry', { entryId: entry.id });
    }
    return this.currentUrl();
  }

  /** Inserts text as if pasted or composed by an IME (no key events). */
  async insertText(text: string): Promise<void> {
    await this.#session.send('Input.insertText', { text });
  }

  /** Stops the screencast and detaches; safe to call twice or after the page closed. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#frames.dispose();
    await this.#session.send('Page.stopScreencast').catch(() => undefined);
    await this.#session.detach().catch(() => undefined);
  }
}

import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../src-main/base/errors.ts';
import { silentLogger } from '../../src-main/base/logger.ts';
import type { ScreencastFrame } from '../../src-main/browser/liveView.ts';
import { LiveChannels, type LiveViewer } from '../../src-main/engine/liveChannel.ts';
import { LiveViewHub } from '../../src-main/engine/liveViewHub.ts';
import { launchTestBrowser } from '../helpers/chromium.ts';
import { until } from '../helpers/wait.ts';

/** A viewer that keeps what it was sent. */
function recorder(): LiveViewer & { frames: ScreencastFrame[]; ended: number } {
  const seen = { frames: [] as ScreencastFrame[], ended: 0 };
  return Object.assign(seen, {
    frame: (frame: ScreencastFrame) => {
      seen.frames.push(frame);
    },
    end: () => {
      seen.ended += 1;
    },
  });
}

/** LiveChannels (engine): one screencast per live view, shared by its viewers, against real Chromium pages. */
describe('LiveChannels', () => {
  let browser: Awaited<ReturnType<typeof launchTestBrowser>>;
  let context: BrowserContext;

  beforeAll(async () => {
    browser = await launchTestBrowser();
    context = await browser.newContext();
  });
  afterAll(async () => {
    await browser?.close();
  });

  const openPage = async (body: string): Promise<Page> => {
    const page = await context.newPage();
    await page.setContent(body);
    return page;
  };

  it('viewers share one stream: a late viewer gets the latest frame at once; unregistering ends every stream', async () => {
    const hub = new LiveViewHub();
    const channels = new LiveChannels(hub, silentLogger);
    const page = await openPage('<title>a</title><h1 style="font-size:80px">first</h1>');
    const registration = hub.register('tok-a', { title: 'A', page: () => page, interactive: false });
    const first = recorder();
    const channel = channels.channel('tok-a');
    const detachFirst = channel.attach(first);
    await until(() => first.frames.length > 0, 'a first frame');
    expect(first.frames[0]).toMatchObject({ format: expect.stringMatching(/^(jpeg|png)$/), data: expect.any(String) });
    expect(channels.channel('tok-a')).toBe(channel);

    const late = recorder();
    channel.attach(late);
    expect(late.frames).toHaveLength(1);
    expect(late.frames[0]).toBe(first.frames.at(-1));

    detachFirst();
    registration.dispose();
    await until(() => late.ended === 1, 'the stream to end once the target is gone');
    expect(first.ended).toBe(0);
    expect(channel.ended).toBe(true);
    expect(() => channels.channel('tok-a')).toThrow(new NotFoundError('Live view not found or ended'));
    await page.close();
  });

  it('follows the target to a new page', async () => {
    const hub = new LiveViewHub();
    const channels = new LiveChannels(hub, silentLogger);
    const pages = [await openPage('<h1>one</h1>')];
    const registration = hub.register('tok-b', { title: 'B', page: () => pages.at(-1), interactive: true });
    const viewer = recorder();
    const detach = channels.channel('tok-b').attach(viewer);
    await until(() => viewer.frames.length > 0, 'a frame of the first page');
    pages.push(await openPage('<body style="background:#c00"><h1>two</h1></body>'));
    const before = viewer.frames.length;
    await until(() => viewer.frames.length > before, 'a frame of the second page');
    // Input goes to the page the target shows now.
    await pages[1]?.setContent('<input id="box" autofocus>');
    await pages[1]?.focus('#box');
    await channels.sendInput('tok-b', { kind: 'text', text: 'typed live' });
    expect(await pages[1]?.inputValue('#box')).toBe('typed live');
    expect(await pages[0]?.evaluate(() => document.body.textContent)).toBe('one');
    detach();
    registration.dispose();
    for (const page of pages) await page.close();
  });

  it('input: an unknown token is 404, a read-only view 409, a view with no page 409', async () => {
    const hub = new LiveViewHub();
    const channels = new LiveChannels(hub, silentLogger);
    await expect(channels.sendInput('nobody', { kind: 'text', text: 'x' })).rejects.toThrow(NotFoundError);
    const page = await openPage('<input id="box" autofocus>');
    hub.register('read-only', { title: 'R', page: () => page, interactive: false });
    await expect(channels.sendInput('read-only', { kind: 'text', text: 'x' })).rejects.toThrow(
      new ConflictError('This live view does not accept input'),
    );
    expect(await page.inputValue('#box')).toBe('');
    hub.register('no-page', { title: 'N', page: () => undefined, interactive: true });
    await expect(channels.sendInput('no-page', { kind: 'text', text: 'x' })).rejects.toThrow(
      new ConflictError('The live view has no page to control right now'),
    );
    await page.close();
  });
});

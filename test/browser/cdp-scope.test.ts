// tier: unit
// A session's share of a shared browser (a `cdp` host's Chromium, docs/scale.md "Remote sessions and cdp_url"):
// what CdpContextScope lets through, rewrites, answers itself or refuses, and which events a channel sees.
import { describe, expect, it } from 'vitest';
import { CdpContextScope } from '../../src-main/browser/cdpScope.ts';

const targets: Record<string, { targetId: string; browserContextId: string }> = {
  mine: { targetId: 'mine', browserContextId: 'ctx-session' },
  theirs: { targetId: 'theirs', browserContextId: 'ctx-job' },
};
const scope = () => new CdpContextScope('ctx-session', async (id) => targets[id]);

describe('CdpContextScope', () => {
  it('holds commands to the session context: new pages, cookies, downloads, permissions', async () => {
    const s = scope();
    expect(await s.command('Target.createTarget', { url: 'about:blank' })).toEqual({
      params: { url: 'about:blank', browserContextId: 'ctx-session' },
    });
    expect(await s.command('Storage.getCookies', {})).toEqual({ params: { browserContextId: 'ctx-session' } });
    expect(await s.command('Storage.setCookies', { cookies: [], browserContextId: 'ctx-job' })).toEqual({
      refused: 'browserContextId: not a context of this session',
    });
    expect(await s.command('Browser.grantPermissions', { permissions: ['geolocation'] })).toEqual({
      params: { permissions: ['geolocation'], browserContextId: 'ctx-session' },
    });
  });

  it("refuses another context's targets and the browser's close; answers the context list itself", async () => {
    const s = scope();
    expect(await s.command('Target.attachToTarget', { targetId: 'mine', flatten: true })).toEqual({
      params: { targetId: 'mine', flatten: true },
    });
    for (const method of [
      'Target.attachToTarget',
      'Target.closeTarget',
      'Target.activateTarget',
      'Target.autoAttachRelated',
    ])
      expect(await s.command(method, { targetId: 'theirs' })).toEqual({ refused: 'No target with given id found' });
    expect(await s.command('Target.attachToTarget', { targetId: 'nowhere' })).toEqual({
      refused: 'No target with given id found',
    });
    expect(await s.command('Browser.close', {})).toEqual({
      refused: 'the browser is shared on its host: end the session with POST /public/sessions/{id}/terminate',
    });
    expect(await s.command('Target.getBrowserContexts', {})).toEqual({ result: { browserContextIds: [] } });
    expect(await s.command('Target.disposeBrowserContext', { browserContextId: 'ctx-session' })).toEqual({
      refused: 'browserContextId: not a context of this session',
    });
  });

  it('a context the client creates is the session’s: listed, usable, disposable, disposed with it', async () => {
    const s = scope();
    expect(await s.command('Target.createBrowserContext', {})).toEqual({ params: {} });
    s.result('Target.createBrowserContext', { browserContextId: 'ctx-own' });
    expect(await s.command('Target.getBrowserContexts', {})).toEqual({ result: { browserContextIds: ['ctx-own'] } });
    expect(await s.command('Target.createTarget', { url: 'about:blank', browserContextId: 'ctx-own' })).toEqual({
      params: { url: 'about:blank', browserContextId: 'ctx-own' },
    });
    expect(await s.command('Target.disposeBrowserContext', { browserContextId: 'ctx-own' })).toEqual({
      params: { browserContextId: 'ctx-own' },
    });
    expect(s.contexts).toEqual(['ctx-session', 'ctx-own']);
  });

  it("refuses browser-level commands that would act on the host's default context or the whole browser", async () => {
    const s = scope();
    const refusedAt = (domain: string) => ({
      refused: `the browser is shared on its host: a browser-level ${domain} command there would act on other clients' contexts (send it on a page's session, or use a local browser)`,
    });
    // No browserContextId parameter: Chromium would use its default context (other clients' data).
    for (const method of ['Storage.clearDataForOrigin', 'Storage.clearDataForStorageKey', 'Storage.getUsageAndQuota'])
      expect(await s.command(method, { origin: 'https://a.example', storageTypes: 'all' })).toEqual(
        refusedAt('Storage'),
      );
    // Browser-wide: other domains on the browser session, and Browser.* whatever session sends it.
    expect(await s.command('Tracing.start', {})).toEqual(refusedAt('Tracing'));
    expect(await s.command('Fetch.enable', {})).toEqual(refusedAt('Fetch'));
    expect(await s.command('Security.setIgnoreCertificateErrors', { ignore: true })).toEqual(refusedAt('Security'));
    expect(await s.command('Browser.getBrowserCommandLine', {}, 'page-session')).toEqual(refusedAt('Browser'));
    expect(await s.command('Browser.someFutureCommand', {})).toEqual(refusedAt('Browser'));
    // Optional browserContextId: the session's own is filled in.
    expect(await s.command('Storage.clearCookies', {})).toEqual({ params: { browserContextId: 'ctx-session' } });
    expect(await s.command('Browser.cancelDownload', { guid: 'g' })).toEqual({
      params: { guid: 'g', browserContextId: 'ctx-session' },
    });
    expect(await s.command('Browser.getVersion', {})).toEqual({ params: {} });
    // On a page's own session the same Storage command acts on that page's context: it passes.
    expect(await s.command('Storage.clearDataForOrigin', { origin: 'https://a.example' }, 'page-session')).toEqual({
      params: { origin: 'https://a.example' },
    });
    expect(await s.command('Fetch.enable', {}, 'page-session')).toEqual({ params: {} });
    // A second browser session of the channel is browser-level too.
    s.result('Target.attachToBrowserTarget', { sessionId: 'browser-2' });
    expect(await s.command('Storage.clearDataForOrigin', { origin: 'https://a.example' }, 'browser-2')).toEqual(
      refusedAt('Storage'),
    );
    s.event('Target.attachedToTarget', { sessionId: 'browser-3', targetInfo: { targetId: 'b', type: 'browser' } });
    expect(await s.command('Tracing.start', {}, 'browser-3')).toEqual(refusedAt('Tracing'));
    // Windows: only those of the session's own targets.
    expect(await s.command('Browser.setWindowBounds', { windowId: 7, bounds: {} })).toEqual({
      refused: 'windowId: not a window of this session (Browser.getWindowForTarget names it)',
    });
    s.result('Browser.getWindowForTarget', { windowId: 7, bounds: {} });
    expect(await s.command('Browser.setWindowBounds', { windowId: 7, bounds: {} })).toEqual({
      params: { windowId: 7, bounds: {} },
    });
  });

  it("filters lists and events to the session's targets", () => {
    const s = scope();
    expect(
      s.result('Target.getTargets', {
        targetInfos: [
          { targetId: 'mine', type: 'page', browserContextId: 'ctx-session' },
          { targetId: 'theirs', type: 'page', browserContextId: 'ctx-job' },
          { targetId: 'b', type: 'browser' },
        ],
      }),
    ).toEqual({
      targetInfos: [
        { targetId: 'mine', type: 'page', browserContextId: 'ctx-session' },
        { targetId: 'b', type: 'browser' },
      ],
    });
    const created = (targetId: string, browserContextId: string) => ({
      targetInfo: { targetId, type: 'page', browserContextId },
    });
    expect(s.event('Target.targetCreated', created('p2', 'ctx-session'))).toBe(true);
    expect(s.event('Target.targetCreated', created('j2', 'ctx-job'))).toBe(false);
    expect(s.event('Target.attachedToTarget', { sessionId: 'x', ...created('j2', 'ctx-job') })).toBe(false);
    expect(s.event('Target.targetInfoChanged', created('j2', 'ctx-job'))).toBe(false);
    expect(s.event('Target.targetDestroyed', { targetId: 'j2' })).toBe(false);
    expect(s.event('Target.targetDestroyed', { targetId: 'p2' })).toBe(true);
    expect(s.event('Page.frameNavigated', {})).toBe(true);
  });
});

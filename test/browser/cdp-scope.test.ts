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

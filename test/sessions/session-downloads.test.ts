import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { jsonOf, startService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

/**
 * Issue 21: a session's downloads land in that session's own folder, under the file's own name, even
 * when the client never sets a download behaviour — and a profile used by one session and then another
 * does not keep pointing its downloads at the first session's (deleted) folder.
 */
describe("downloads of sessions on one profile land in the current session's folder (issue 21)", () => {
  let svc: TestService;
  let pages: PageServer;
  let profileId: string;

  beforeAll(async () => {
    pages = await startPageServer({
      '/': '<!doctype html><title>files</title><a id="get" href="/download">report</a>',
      '/download': () => ({
        body: 'report-bytes',
        type: 'application/octet-stream',
        headers: { 'content-disposition': 'attachment; filename="report.bin"' },
      }),
    });
    svc = await startService(undefined, { sessionPoolSize: 0 });
    // A profile is created with a login window on it; closing that saves the profile.
    const created = await jsonOf(await svc.api('/profiles/default', { method: 'POST', json: { name: 'downloads' } }));
    expect(created.status).toBe(200);
    const body = created.body as { profile_id: string; session_id: string };
    profileId = body.profile_id;
    expect((await svc.api(`/profiles/default/sessions/${body.session_id}/close`, { method: 'POST' })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await svc?.dispose();
    await pages?.close();
  });

  const sessionsDir = (): string => join(svc.dataDir, 'tmp', 'sessions');
  const downloadFolder = (): string | undefined => {
    const prefs = JSON.parse(
      readFileSync(join(svc.dataDir, 'profiles', profileId, 'Default', 'Preferences'), 'utf8'),
    ) as { download?: { default_directory?: string } };
    return prefs.download?.default_directory;
  };

  /** One session on the profile: a Puppeteer client (no download behaviour of its own) clicks a download link. */
  async function downloadInSession(): Promise<string> {
    const created = await jsonOf(
      await svc.api('/public/sessions', { method: 'POST', key: svc.accountKey, json: { profile_id: profileId } }),
    );
    expect(created.status).toBe(200);
    const { session_id: sessionId, cdp_url: cdpUrl } = created.body as { session_id: string; cdp_url: string };
    const client = await puppeteer.connect({ browserWSEndpoint: cdpUrl, defaultViewport: null });
    let landed: string;
    try {
      const page = await client.newPage();
      await page.goto(`${pages.url}/`);
      await page.click('#get');
      landed = await until(
        () => {
          for (const dir of readdirSync(sessionsDir())) {
            const file = join(sessionsDir(), dir, 'downloads', 'report.bin');
            if (existsSync(file) && readFileSync(file, 'utf8') === 'report-bytes') return file;
          }
          return undefined;
        },
        "report.bin in the session's downloads folder",
        30_000,
      );
      // While the session runs, the profile's own default is this session's folder.
      expect(downloadFolder()).toBe(join(landed, '..'));
    } finally {
      await client.disconnect();
    }
    expect(
      (await svc.api(`/public/sessions/${sessionId}/terminate`, { method: 'POST', key: svc.accountKey })).status,
    ).toBe(200);
    return landed;
  }

  it("two sessions one after the other: each download is in that session's folder, and the ended session's folder is not left in the profile", async () => {
    const first = await downloadInSession();
    expect(existsSync(first)).toBe(false);
    expect(downloadFolder()).toBeUndefined();

    const second = await downloadInSession();
    expect(join(second, '..')).not.toBe(join(first, '..'));
    expect(downloadFolder()).toBeUndefined();
  }, 120_000);
});

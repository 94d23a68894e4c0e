import { readFileSync, existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { html, useActionHarness } from './actionHarness.ts';

let buttonLabel = 'Continue';
let extra = '';
const form = () => `<!doctype html><title>Details</title>
<form method="post" action="/cache/submit">
<label for="email">Email address</label><input id="email" name="email" type="email">
<label for="pw">Password</label><input id="pw" name="pw" type="password">
<button type="submit" id="go">${buttonLabel}</button>
</form>${extra}`;

/** Every byte SQLite holds for the store, including the write-ahead log. */
function databaseBytes(file: string): string {
  return [file, `${file}-wal`]
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f).toString('latin1'))
    .join('');
}

describe('the step cache (real SQLite file, real Chromium)', () => {
  const h = useActionHarness({
    '/cache/form': (req, res) => html(form())(req, res, null, h.server),
    '/cache/other': html(
      '<!doctype html><title>Other</title><button>Continue</button><label>Email address <input name="e2"></label>',
    ),
  });
  const open = (path = '/cache/form') => h.page.goto(h.server.url(path));
  const entryFor = (action: string) =>
    h.service.listCache('default', { limit: 100, offset: 0 }).entries.find((e) => e.action === action);

  it('a fresh run stores the step; the next run replays it and counts a hit', async () => {
    await open();
    const first = await h.run('type {{email}} into Email address', { variables: { email: 'ada@example.com' } });
    expect(first).toMatchObject({ success: true, used_cache: false, set_cache: true, cache_failed: false, credits: 1 });
    await open();
    const second = await h.run('type {{email}} into Email address', { variables: { email: 'grace@example.com' } });
    expect(second).toMatchObject({
      success: true,
      used_cache: true,
      set_cache: false,
      cache_failed: false,
      credits: 1,
    });
    expect(await h.page.locator('#email').inputValue()).toBe('grace@example.com');
    expect(entryFor('type {{email}} into Email address')).toMatchObject({
      id: null,
      page: `${h.server.origin}/cache/form`,
      operation: 'fill',
      target: { role: 'textbox', name: 'Email address' },
      hits: 1,
      misses: 1,
    });
  });

  it('variable values never reach the SQLite file', async () => {
    const secret = 'S3cret-Value-Never-Stored';
    await open();
    expect(await h.run('type {{password}} into Password', { variables: { password: secret } })).toMatchObject({
      success: true,
      set_cache: true,
    });
    await open();
    expect(await h.run('type {{password}} into Password', { variables: { password: secret } })).toMatchObject({
      success: true,
      used_cache: true,
    });
    expect(await h.page.locator('#pw').inputValue()).toBe(secret);
    expect(await h.run('extract the text of Password')).toMatchObject({
      success: false,
      error: 'A password field is never read back',
    });
    h.store.db.pragma('wal_checkpoint(TRUNCATE)');
    const bytes = databaseBytes(h.dbFile);
    expect(bytes).toContain('type {{password}} into Password');
    expect(bytes).not.toContain(secret);
  });

  it('a renamed button: the replay sees the name changed, resolves afresh (self-heal) and rewrites the entry', async () => {
    buttonLabel = 'Continue';
    await open();
    expect(await h.run('click Continue', { id: 'step-continue' })).toMatchObject({
      success: true,
      set_cache: true,
      used_cache: false,
    });
    buttonLabel = 'Continue to payment';
    await open();
    // The cached button "Continue" is gone; the fresh resolution finds "Continue to payment" as the only partial match.
    expect(await h.run('click Continue', { id: 'step-continue' })).toMatchObject({
      success: true,
      used_cache: false,
      cache_failed: true,
      set_cache: true,
    });
    expect(entryFor('click Continue')).toMatchObject({
      id: 'step-continue',
      target: { role: 'button', name: 'Continue to payment' },
      hits: 0,
      misses: 2,
    });
    await open();
    expect(await h.run('click Continue', { id: 'step-continue' })).toMatchObject({
      success: true,
      used_cache: true,
      cache_failed: false,
    });
    buttonLabel = 'Continue';
  });

  it('replay never acts on a look-alike: with the target gone and nothing matching, nothing is clicked', async () => {
    buttonLabel = 'Continue';
    await open();
    expect(await h.run('click the Continue button', { id: 'strict' })).toMatchObject({
      success: true,
      set_cache: true,
    });
    buttonLabel = 'Save';
    await open();
    const posts = h.server.postsTo('/cache/submit').length;
    expect(await h.run('click the Continue button', { id: 'strict' })).toEqual({
      success: false,
      error: 'No button "Continue" found on the page',
      credits: 1,
      used_cache: false,
      set_cache: false,
      cache_failed: true,
    });
    expect(h.server.postsTo('/cache/submit').length).toBe(posts);
    // The stale entry is kept (nothing better was found) and its miss counted.
    expect(entryFor('click the Continue button')).toMatchObject({ target: { name: 'Continue' }, misses: 2 });
    buttonLabel = 'Continue';
  });

  it('a second element with the same role and name: the fallback selector still finds the cached one, which must read the same', async () => {
    buttonLabel = 'Continue';
    await open();
    expect(await h.run('click the Continue button', { id: 'fallback' })).toMatchObject({
      success: true,
      set_cache: true,
    });
    extra = '<button type="button" onclick="document.title = \'wrong\'">Continue</button>';
    await open();
    const posts = h.server.postsTo('/cache/submit').length;
    expect(await h.run('click the Continue button', { id: 'fallback' })).toMatchObject({
      success: true,
      used_cache: true,
    });
    // The click's form submission reaches the server after the click returns (its navigation is the page's).
    await expect.poll(() => h.server.postsTo('/cache/submit').length).toBe(posts + 1);
    // A fresh resolution would refuse: two buttons are named Continue.
    await open();
    expect((await h.run('click the Continue button', { set_cache: false })).error).toMatch(
      /^Ambiguous target: 2 elements match button "Continue"/,
    );
    extra = '';
  });

  it('set_cache false replays but never stores or replaces', async () => {
    await open();
    expect(await h.run('type x into Email address', { set_cache: false })).toMatchObject({
      success: true,
      set_cache: false,
      used_cache: false,
    });
    expect(entryFor('type x into Email address')).toBeUndefined();
  });

  it('without an id the key includes the page: the same action on another path is its own entry', async () => {
    await open('/cache/other');
    expect(await h.run('type {{email}} into Email address', { variables: { email: 'a@b.c' } })).toMatchObject({
      success: true,
      used_cache: false,
      set_cache: true,
    });
    const entries = h.service
      .listCache('default', { limit: 100, offset: 0 })
      .entries.filter((e) => e.action === 'type {{email}} into Email address');
    expect(entries.map((e) => e.page).sort()).toEqual([
      `${h.server.origin}/cache/form`,
      `${h.server.origin}/cache/other`,
    ]);
  });

  it('an id reused for another action does not apply: fresh run, cache_failed, entry replaced', async () => {
    await open();
    expect(await h.run('type a@b.c into Email address', { id: 'reused' })).toMatchObject({ set_cache: true });
    expect(await h.run('type hunter2 into Password', { id: 'reused' })).toMatchObject({
      success: true,
      cache_failed: true,
      set_cache: true,
    });
    expect(
      h.service.listCache('default', { limit: 100, offset: 0 }).entries.filter((e) => e.id === 'reused'),
    ).toHaveLength(1);
  });

  it('entries are per workspace: another workspace sees none', async () => {
    expect(h.service.listCache('ws2', { limit: 100, offset: 0 })).toEqual({ entries: [], total: 0 });
    expect(h.service.listCache('default', { limit: 100, offset: 0 }).total).toBeGreaterThan(0);
  });
});

import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.ts';
import { makeDataDir } from '../helpers/service.ts';

describe('portico oauth-app add / list / remove', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await makeDataDir();
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('a custom app needs both URLs; with them it is added, secret read from stdin and never printed', async () => {
    const missing = await cli(dir, ['oauth-app', 'add', 'acme', '--client-id', 'cid']);
    expect(missing.code).toBe(1);
    expect(missing.json.detail).toBe(
      "authorize_url and token_url are required for 'acme' (presets: google, microsoft)",
    );

    const added = await cli(
      dir,
      [
        'oauth-app',
        'add',
        'acme',
        '--authorize-url',
        'https://id.acme.test/authorize',
        '--token-url',
        'https://id.acme.test/token',
        '--client-id',
        'cid',
        '--client-secret-stdin',
        '--scopes',
        'openid email',
        '--userinfo-url',
        'https://id.acme.test/userinfo',
      ],
      'acme-cli-secret-5521\n',
    );
    expect(added.code).toBe(0);
    expect(added.json).toMatchObject({
      id: 'acme',
      client_id: 'cid',
      has_client_secret: true,
      scopes: ['openid', 'email'],
      userinfo_url: 'https://id.acme.test/userinfo',
    });
    expect(added.stdout).not.toContain('acme-cli-secret-5521');
    expect((await readFile(join(dir, 'portico.db'))).includes(Buffer.from('acme-cli-secret-5521'))).toBe(false);
    // Replacing the app keeps its secret while the client id stays; a new client id drops it.
    const common = ['--authorize-url', 'https://id.acme.test/authorize', '--token-url', 'https://id.acme.test/token'];
    expect((await cli(dir, ['oauth-app', 'add', 'acme', ...common, '--client-id', 'cid'])).json).toMatchObject({
      has_client_secret: true,
      scopes: [],
    });
    expect((await cli(dir, ['oauth-app', 'add', 'acme', ...common, '--client-id', 'other'])).json).toMatchObject({
      has_client_secret: false,
      client_id: 'other',
    });
  });

  it('presets: google needs the client secret, microsoft only the client id', async () => {
    const google = await cli(dir, ['oauth-app', 'add', 'google', '--client-id', 'g-id.apps.googleusercontent.com']);
    expect(google.code).toBe(1);
    expect(String(google.json.detail)).toContain('client_secret');
    const withSecret = await cli(
      dir,
      ['oauth-app', 'add', 'google', '--client-id', 'g-id.apps.googleusercontent.com', '--client-secret-stdin'],
      'g-secret',
    );
    expect(withSecret.json).toMatchObject({
      id: 'google',
      authorize_url: 'https://accounts.google.com/o/oauth2/v2/auth',
      token_url: 'https://oauth2.googleapis.com/token',
      has_client_secret: true,
    });
    expect(withSecret.json.scopes).toContain('https://www.googleapis.com/auth/gmail.readonly');
    const microsoft = await cli(dir, ['oauth-app', 'add', 'microsoft', '--client-id', 'ms-id']);
    expect(microsoft.json).toMatchObject({
      id: 'microsoft',
      has_client_secret: false,
      token_url: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
    });
  });

  it('bad input is refused with a reason and stores nothing', async () => {
    expect(
      (
        await cli(dir, [
          'oauth-app',
          'add',
          'bad',
          '--authorize-url',
          'ftp://x',
          '--token-url',
          'https://x/t',
          '--client-id',
          'c',
        ])
      ).json.detail,
    ).toMatch(/^authorize_url: must be an absolute http\(s\) URL/);
    expect((await cli(dir, ['oauth-app', 'add', '../x', '--client-id', 'c'])).json.detail).toMatch(/^id: /);
    expect((await cli(dir, ['oauth-app', 'add', 'acme2', '--client-id', 'c', '--client-secret-stdin'], '')).code).toBe(
      2,
    );
    expect((await cli(dir, ['oauth-app', 'add', 'acme3'])).code).toBe(2);
    const list = await cli(dir, ['oauth-app', 'list']);
    expect((list.json.oauth_apps as { id: string }[]).map((app) => app.id)).toEqual(['acme', 'google', 'microsoft']);
  });

  it('remove forgets the app (and its secret); an unknown id is a 404 detail', async () => {
    expect((await cli(dir, ['oauth-app', 'remove', 'acme'])).json).toEqual({ removed: true });
    expect(await cli(dir, ['oauth-app', 'remove', 'acme'])).toMatchObject({
      code: 1,
      json: { detail: "OAuth app 'acme' not found" },
    });
    expect((await cli(dir, ['oauth-app', 'list'])).json.oauth_apps).toHaveLength(2);
  });
});

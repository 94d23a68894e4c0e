import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretRedactor } from '../../src-main/base/logger.ts';
import { isSecretParamName, redactUrl, redactUrlsIn } from '../../src-main/base/urlRedaction.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { jsonOf, startService, waitForJob, type TestService } from '../helpers/service.ts';

const PASSWORD = 'hunter2-Sekret!';

describe('secret URL parameters are redacted wherever a URL is recorded', () => {
  it('keeps where the page was and replaces only secret values: query, fragment, user:password@', () => {
    expect(redactUrl('https://bank.example/welcome?user=ada&password=hunter2&lang=en')).toBe(
      'https://bank.example/welcome?user=ada&password=[redacted]&lang=en',
    );
    expect(redactUrl('https://app.example/cb#access_token=eyJ.abc&expires_in=3600&state=xyz')).toBe(
      'https://app.example/cb#access_token=[redacted]&expires_in=3600&state=xyz',
    );
    expect(redactUrl('https://ada:s3cret@host.example:8443/path?q=1')).toBe(
      'https://ada:[redacted]@host.example:8443/path?q=1',
    );
    expect(redactUrl('https://a.example/?Pass%77ord=x&x-api-key=k&code=123456&OTP=1&client_secret=s&q=passport')).toBe(
      'https://a.example/?Pass%77ord=[redacted]&x-api-key=[redacted]&code=[redacted]&OTP=[redacted]&client_secret=[redacted]&q=passport',
    );
    expect(redactUrl('https://a.example/path/password/reset?next=/home')).toBe(
      'https://a.example/path/password/reset?next=/home',
    );
    expect(redactUrl('not a url ?password=x')).toBe('not a url ?password=x');
    for (const name of [
      'passwd',
      'pwd',
      'token',
      'api_key',
      'access_token',
      'secret',
      'key',
      'pin',
      'session_id',
      'auth_code',
      'refresh-token',
    ])
      expect(isSecretParamName(name), name).toBe(true);
    for (const name of ['user', 'email', 'lang', 'page', 'footprint', 'monkey', 'next'])
      expect(isSecretParamName(name), name).toBe(false);
  });

  it('finds URLs inside text: log lines, step descriptions, JSON strings', () => {
    expect(redactUrlsIn('step 2: submitted, now on https://x.example/done?otp=991122 (title "Done")')).toBe(
      'step 2: submitted, now on https://x.example/done?otp=[redacted] (title "Done")',
    );
    expect(redactUrlsIn('{"final_url":"http://127.0.0.1:1/w?password=a b"}')).toBe(
      '{"final_url":"http://127.0.0.1:1/w?password=[redacted] b"}',
    );
    const redactor = new SecretRedactor();
    expect(
      redactor.redactJson({
        result: { final_url: 'https://x.example/?token=t0k3n' },
        list: ['https://y.example/#pwd=1'],
      }),
    ).toEqual({
      result: { final_url: 'https://x.example/?token=[redacted]' },
      list: ['https://y.example/#pwd=[redacted]'],
    });
  });
});

describe("a login form that submits with GET: the password never shows in the job's result, events or logs (real service, real Chromium)", () => {
  let pages: PageServer;
  let svc: TestService;

  beforeAll(async () => {
    pages = await startPageServer({
      '/login': `<!doctype html><title>Sign in</title><form action="/welcome" method="get">
        <label for="u">Username</label><input id="u" name="username">
        <label for="p">Password</label><input id="p" name="password" type="password">
        <button>Sign in</button></form>`,
      '/welcome': '<!doctype html><title>Welcome</title><h1>Welcome back</h1><p>You are signed in.</p>',
    });
    svc = await startService();
  });
  afterAll(async () => {
    await svc.dispose();
    await pages.close();
  });

  it('final_url says password=[redacted]; the page really got the password; nothing recorded holds it', async () => {
    await svc.api('/portals/default', {
      method: 'POST',
      json: {
        endpoint_name: 'getlogin',
        start_url: `${pages.url}/login`,
        task: 'Sign in',
        form_schema: { type: 'object', properties: { username: { type: 'string' }, password: { type: 'string' } } },
      },
    });
    const started = await jsonOf(
      await svc.api('/jobs/default/getlogin/start', {
        method: 'POST',
        json: { form_data: { username: 'ada', password: PASSWORD } },
      }),
    );
    const jobId = String((started.body as { job_id: string }).job_id);
    const status = await waitForJob(svc, 'getlogin', jobId, ['completed', 'failed'], 60_000);
    expect(status.status, JSON.stringify(status)).toBe('completed');
    // The browser did submit the password in the address: the redaction is of what is recorded, not of what was sent.
    expect(pages.hits).toContain('GET /welcome');
    const result = status.result as { final_url: string };
    expect(result.final_url).toBe(`${pages.url}/welcome?username=ada&password=[redacted]`);

    const encoded = encodeURIComponent(PASSWORD);
    const db = new Database(join(svc.dataDir, 'portico.db'), { readonly: true });
    const stored = (() => {
      try {
        return JSON.stringify({
          result: db.prepare('SELECT result FROM jobs WHERE id = ?').get(jobId),
          events: db.prepare('SELECT data FROM job_events WHERE job_id = ?').all(jobId),
          logs: db.prepare('SELECT line FROM job_logs WHERE job_id = ?').all(jobId),
        });
      } finally {
        db.close();
      }
    })();
    expect(stored).toContain('password=[redacted]');
    for (const text of [JSON.stringify({ result: status.result, events: status.events }), stored]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(encoded);
    }
    // Nor is it anywhere in the database files as a URL parameter (the job's own form_data keeps it, as JSON).
    for (const file of ['portico.db', 'portico.db-wal']) {
      const bytes = existsSync(join(svc.dataDir, file)) ? readFileSync(join(svc.dataDir, file)) : Buffer.alloc(0);
      expect(bytes.includes(Buffer.from(`password=${encoded}`)), file).toBe(false);
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { page, startFormServer, type FormServer, type Handler } from '../helpers/formServer.ts';
import { FakeClock } from '../helpers/fakeClock.ts';
import { startService, waitForJob, type TestService } from '../helpers/service.ts';

// No fixed 5 s: a fill waits for its control to be ready (Playwright's actionability: here, editable) for as
// long as the job has left (agent/waitBudget.ts), and a job whose time runs out first fails naming the field.

// The service's one clock: the job's active time moves only when the test moves it, and a wait on the page
// gets what is left of it (in real time: Playwright's own timeout).
const clock = new FakeClock();

const html =
  (body: string, title: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(body, title));
  };

// A form that goes busy as soon as something is typed: every other field is disabled while it "saves a
// draft" (sites do this around async validation) — for `busyMs`, or for good when null. Scanned while
// enabled, so the filler places both values and its second fill must wait for the field to be enabled.
const form = (busyMs: number | null) =>
  html(
    `<h1>Your details</h1><form method="post" action="/submit/details">
    <label for="fn">Full name</label><input id="fn" name="fn">
    <label for="em">Email address</label><input id="em" name="em" type="email">
    <button type="submit">Send</button></form>
    <script>
      let busy = false;
      document.addEventListener('input', (event) => {
        if (busy) return;
        busy = true;
        const others = [...document.querySelectorAll('input')].filter((el) => el !== event.target);
        for (const el of others) el.disabled = true;
        ${busyMs === null ? '' : `setTimeout(() => { for (const el of others) el.disabled = false; }, ${busyMs});`}
      });
    </script>`,
    'Your details',
  );

describe('autofill waits follow the page and the job’s time, not a constant', () => {
  let svc: TestService;
  let forms: FormServer;
  const schema = {
    type: 'object',
    required: ['full_name', 'email'],
    properties: {
      full_name: { type: 'string', title: 'Full name' },
      email: { type: 'string', title: 'Email address' },
    },
  };

  /** Runs a job; `spentMs` of its active time passes (on the clock) as soon as it is running. */
  const run = async (name: string, path: string, timeoutMinutes: number, spentMs = 0) => {
    const created = await svc.send('createPortal', {
      params: { org_id: 'default' },
      body: {
        endpoint_name: name,
        start_url: forms.url(path),
        task: 'Fill in and submit the form',
        form_schema: schema,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const started = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: name },
      body: { form_data: { full_name: 'Ada Lovelace', email: 'ada@example.org' }, timeout_minutes: timeoutMinutes },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const jobId = String((started.body as { job_id: string }).job_id);
    if (spentMs > 0) {
      await waitForJob(svc, name, jobId, ['running', 'completed', 'failed'], 60_000);
      clock.advance(spentMs);
    }
    return waitForJob(svc, name, jobId, ['completed', 'failed'], 120_000);
  };

  beforeAll(async () => {
    forms = await startFormServer({
      // Busy for 6 s: longer than the old fixed 5 s fill timeout.
      '/late': form(6_000),
      '/never': form(null),
    });
    svc = await startService(undefined, { clock });
  });
  afterAll(async () => {
    await svc?.dispose();
    await forms?.close();
  });

  it('a control that becomes enabled after more than 5 s is filled, on a job with the time for it', async () => {
    const done = await run('late', '/late', 5); // 5 minutes of job time for a 6 s wait
    expect(done.error ?? null, JSON.stringify(done.error)).toBeNull();
    expect(done.status).toBe('completed');
    expect(forms.postsTo('/submit/details').at(-1)?.fields).toMatchObject({
      fn: 'Ada Lovelace',
      em: 'ada@example.org',
    });
  });

  it('a job whose time runs out first fails saying which control it waited for, and why', async () => {
    // 42 of its 60 s pass at once: 18 s are left, 15 s of them kept to report, so the fill waits 3 s.
    const done = await run('never', '/never', 1, 42_000);
    expect(done.status).toBe('failed');
    expect(String(done.error)).toMatch(
      /^The page was not ready within the job's time \(timeout_minutes 1, 15 s kept to report\): '(Full name|Email address)' \(form_data '(full_name|email)'\): locator\.fill waited for the control \(.*not enabled.*\)$/,
    );
    expect(forms.postsTo('/submit/details')).toHaveLength(1); // only the first job's
  });
});

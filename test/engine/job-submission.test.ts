import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { JobStatusResponse, type JobEventData } from '../../src-main/contract/job.ts';
import { page, startFormServer, type FormServer, type Handler } from '../helpers/formServer.ts';
import { startService, waitForJob, type TestService } from '../helpers/service.ts';
import { startPythonReceiver, type PythonReceiver } from '../helpers/webhookReceiver.ts';

const previousHeadless = process.env.PORTICO_HEADLESS;
process.env.PORTICO_HEADLESS = '1';

const html =
  (body: string, title: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(body, title));
  };

/** builtin:autofill through the real job engine: completed only with a submission seen, and its receipt in the result, the events and the webhook. */
describe('a builtin job completes only when it saw the form submitted', () => {
  let svc: TestService;
  let forms: FormServer;
  let receiver: PythonReceiver;
  const schema = {
    type: 'object',
    required: ['full_name', 'email'],
    properties: { full_name: { type: 'string', title: 'Full name' }, email: { type: 'string' } },
  };
  const formData = { full_name: 'Ada Lovelace', email: 'ada@example.org' };

  const portal = async (name: string, task: string) => {
    const res = await svc.send('createPortal', {
      params: { org_id: 'default' },
      body: {
        endpoint_name: name,
        start_url: forms.url('/start'),
        task,
        form_schema: schema,
        webhook_url: receiver.url(`/hook/${name}`),
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  };
  const start = async (name: string) => {
    const res = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: name },
      body: { form_data: formData },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return String((res.body as { job_id: string }).job_id);
  };

  beforeAll(async () => {
    forms = await startFormServer({
      '/start': html(
        '<h1>Apply for a fishing licence</h1><p><a href="/form">Open the application</a></p>',
        'Fishing licences',
      ),
      '/form': html(
        `<h1>Your details</h1><form method="post" action="/submit/licence">
        <label for="fn">Full name</label><input id="fn" name="fn" required>
        <label for="em">Email address</label><input id="em" name="em" type="email" required>
        <button type="submit">Submit application</button></form>`,
        'Your details',
      ),
    });
    svc = await startService();
    const key = await svc.send('createWebhookKey', { params: { org_id: 'default' } });
    receiver = await startPythonReceiver(String((key.body as { secret: string }).secret));
  });
  afterAll(async () => {
    await svc?.dispose();
    await forms?.close();
    receiver?.close();
    if (previousHeadless === undefined) delete process.env.PORTICO_HEADLESS;
    else process.env.PORTICO_HEADLESS = previousHeadless;
  });

  it('follows the link the task names, and the status, the submission event and the webhook carry the receipt', async () => {
    await portal('linked', "Click the 'Open the application' link, then fill in and submit the form");
    const jobId = await start('linked');
    const done = JobStatusResponse.parse(await waitForJob(svc, 'linked', jobId, ['completed', 'failed'], 60_000));
    expect(done.status, String(done.error)).toBe('completed');
    expect(forms.postsTo('/submit/licence').map((p) => p.fields)).toEqual([
      { fn: 'Ada Lovelace', em: 'ada@example.org' },
    ]);
    const submission: JobEventData<'submission'> | undefined = done.events.flatMap((e) =>
      e.type === 'submission' ? [e.data] : [],
    )[0];
    expect(submission).toMatchObject({
      method: 'POST',
      url: forms.url('/submit/licence'),
      response_status: 200,
      verified: ['full_name', 'email'],
      unverified: [],
      fields: { fn: 'Ada Lovelace', em: 'ada@example.org' },
    });
    expect(done.result).toMatchObject({ submitted: true, receipt: submission });
    const [hook] = await receiver.waitFor(1, '/hook/linked');
    expect(hook?.body).toMatchObject({
      event_type: 'completed',
      status: 'completed',
      result: { submitted: true, receipt: { verified: ['full_name', 'email'] } },
    });
  });

  it('a task that does not name the link fails saying nothing was submitted: no completed webhook, no submitted', async () => {
    await portal('unlinked', 'Fill in the form and submit it');
    const jobId = await start('unlinked');
    const done = JobStatusResponse.parse(await waitForJob(svc, 'unlinked', jobId, ['completed', 'failed'], 60_000));
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(
      /^Not submitted: no control on the pages it reached took a value \(form_data keys full_name, email\)/,
    );
    expect(done.result).toBeNull();
    expect(done.events.some((e) => e.type === 'submission')).toBe(false);
    const [hook] = await receiver.waitFor(1, '/hook/unlinked');
    expect(hook?.body).toMatchObject({ event_type: 'error', status: 'failed' });
  });
});

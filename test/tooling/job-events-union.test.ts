import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src-main/contract/client.ts';
import { JobEvent, JobStatusResponse, type JobEventData } from '../../src-main/contract/job.ts';
import { html, startPageServer, type LocalServer } from '../helpers/browserFixtures.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { startService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

const previousHeadless = process.env.PORTICO_HEADLESS;
process.env.PORTICO_HEADLESS = '1';

describe('job events are a union told apart by type', () => {
  let svc: TestService;
  let pages: LocalServer;
  beforeAll(async () => {
    pages = await startPageServer({
      '/form': html('<title>Colour form</title><label>Colour <input id="colour"></label>'),
    });
    svc = await startService(undefined, { agents: scriptedRegistry });
  });
  afterAll(async () => {
    await svc?.dispose();
    await pages?.close();
    if (previousHeadless === undefined) delete process.env.PORTICO_HEADLESS;
    else process.env.PORTICO_HEADLESS = previousHeadless;
  });

  it('a job that asks, is answered and steps reports each event with the data its type promises', async () => {
    const client = createApiClient(async (request) => {
      const response = await svc.api(request.path, {
        method: request.method,
        ...(request.body !== undefined && { json: request.body }),
      });
      expect(response.ok, `${request.method} ${request.path}`).toBe(true);
      return response.json();
    });
    await client.call('createPortal', {
      params: { org_id: 'default' },
      body: { endpoint_name: 'asks', start_url: pages.url('/form'), task: 'script:ask', form_schema: {} },
    });
    const { job_id } = await client.call('startJob', {
      params: { org_id: 'default', endpoint_name: 'asks' },
      body: { form_data: {}, human_in_the_loop: true },
    });
    const args = { params: { org_id: 'default', endpoint_name: 'asks' }, query: { job_id } };
    const waiting = await until(
      async () => {
        const job = await client.call('getJobStatus', args);
        return job.status === 'waiting_for_input' ? job : undefined;
      },
      'the job to ask',
      20_000,
    );
    const question = waiting.events.flatMap((e) => (e.type === 'question' ? [e.data] : []))[0];
    expect(question).toMatchObject({ question: 'Which colour?', options: ['red', 'green'] });
    await client.call('answerJob', { ...args, body: { question_id: question?.question_id ?? '', answer: 'green' } });
    const done = await until(
      async () => {
        const job = await client.call('getJobStatus', args);
        return job.status === 'completed' ? job : undefined;
      },
      'the job to complete',
      20_000,
    );
    // The wire body is exactly the union (a breach would have been a 500), in the order things happened.
    expect(JobStatusResponse.parse(done).events.map((e) => e.type)).toEqual(['queued', 'question', 'answer', 'step']);
    const answer: JobEventData<'answer'> | undefined = done.events.flatMap((e) =>
      e.type === 'answer' ? [e.data] : [],
    )[0];
    expect(answer).toEqual({ question_id: question?.question_id, answer: 'green' });
    const step = done.events.find((e) => e.type === 'step');
    expect(step?.type === 'step' && step.data).toEqual({ step: 1, description: 'typed green' });
  });

  it('refuses an event whose data does not fit its type, and a type it does not know', () => {
    const at = new Date().toISOString();
    expect(JobEvent.safeParse({ type: 'step', timestamp: at, data: { step: 0, description: 'ok' } }).success).toBe(
      true,
    );
    expect(JobEvent.safeParse({ type: 'step', timestamp: at, data: { description: 'no number' } }).success).toBe(false);
    expect(JobEvent.safeParse({ type: 'question', timestamp: at, data: { question: 'no id' } }).success).toBe(false);
    expect(JobEvent.safeParse({ type: 'finished', timestamp: at, data: {} }).success).toBe(false);
    const receipt = {
      method: 'POST',
      url: 'http://x/s',
      fields: { a: '1', b: ['x', 'y'] },
      body_sha256: null,
      response_status: 200,
      verified: ['a'],
      unverified: [],
    };
    expect(JobEvent.safeParse({ type: 'submission', timestamp: at, data: receipt }).success).toBe(true);
    expect(
      JobEvent.safeParse({ type: 'submission', timestamp: at, data: { ...receipt, response_status: '200' } }).success,
    ).toBe(false);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { jsonOf, startService, waitForJob, type TestService } from '../helpers/service.ts';

describe('human in the loop (§3, §4.2)', () => {
  let svc: TestService;
  let pages: PageServer;
  const answer = (jobId: string, json: Record<string, unknown>) =>
    svc.request('answerJob', {
      params: { org_id: 'default', endpoint_name: 'ask' },
      query: { job_id: jobId },
      body: json,
    });

  beforeAll(async () => {
    pages = await startPageServer({ '/form': '<!doctype html><title>Q</title><input id="colour">' });
    svc = await startService(undefined, { agents: scriptedRegistry });
    await svc.request('createPortal', {
      params: { org_id: 'default' },
      body: { endpoint_name: 'ask', start_url: `${pages.url}/form`, task: 'script:ask' },
    });
  });
  afterAll(async () => {
    await svc.dispose();
    await pages.close();
  });

  const startAsk = async (hitl: boolean) =>
    String(
      (
        (
          await svc.send('startJob', {
            params: { org_id: 'default', endpoint_name: 'ask' },
            body: { form_data: {}, human_in_the_loop: hitl },
          })
        ).body as { job_id: string }
      ).job_id,
    );

  it('the agent asks: waiting_for_input with a question event; a stale id is 409; the right answer resumes; answering again is 409', async () => {
    const jobId = await startAsk(true);
    const waiting = await waitForJob(svc, 'ask', jobId, ['waiting_for_input', 'failed']);
    expect(waiting.status).toBe('waiting_for_input');
    expect(waiting.browser_url).toEqual(expect.stringContaining('/live/'));
    const question = (waiting.events as { type: string; data: Record<string, unknown> }[]).find(
      (e) => e.type === 'question',
    );
    expect(question?.data).toEqual({
      question_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      question: 'Which colour?',
      options: ['red', 'green'],
      message: "form_data has no key 'colour'",
    });

    const stale = await jsonOf(
      await answer(jobId, { question_id: '00000000-0000-4000-8000-000000000000', answer: 'red' }),
    );
    expect(stale).toEqual({
      status: 409,
      body: { detail: "question_id '00000000-0000-4000-8000-000000000000' does not match the pending question" },
    });
    expect((await waitForJob(svc, 'ask', jobId, ['waiting_for_input'])).status).toBe('waiting_for_input');

    const ok = await jsonOf(await answer(jobId, { question_id: question?.data.question_id, answer: 'green' }));
    expect(ok).toEqual({
      status: 200,
      body: { success: true, message: 'Answer accepted; the job continues', job_id: jobId },
    });
    const done = await waitForJob(svc, 'ask', jobId, ['completed', 'failed']);
    expect(done).toMatchObject({ status: 'completed', result: { colour: 'green' } });
    const types = done.events as { type: string; data: Record<string, unknown> }[];
    expect(types.map((e) => e.type)).toEqual(['queued', 'question', 'answer', 'step']);
    expect(types[2]?.data).toEqual({ question_id: question?.data.question_id, answer: 'green' });

    const late = await jsonOf(await answer(jobId, { question_id: question?.data.question_id, answer: 'red' }));
    expect(late).toEqual({ status: 409, body: { detail: 'Job is not waiting for input (status: completed)' } });
  });

  it('answering a job that is running (not waiting) is 409', async () => {
    await svc.request('createPortal', {
      params: { org_id: 'default' },
      body: { endpoint_name: 'hang', start_url: `${pages.url}/form`, task: 'script:hang' },
    });
    const jobId = String(
      (
        (await svc.send('startJob', { params: { org_id: 'default', endpoint_name: 'hang' }, body: { form_data: {} } }))
          .body as { job_id: string }
      ).job_id,
    );
    await waitForJob(svc, 'hang', jobId, ['running']);
    const res = await svc.send('answerJob', {
      params: { org_id: 'default', endpoint_name: 'hang' },
      query: { job_id: jobId },
      body: { question_id: '00000000-0000-4000-8000-000000000000', answer: 'x' },
    });
    expect(res).toEqual({ status: 409, body: { detail: 'Job is not waiting for input (status: running)' } });
    await svc.request('cancelJob', { params: { org_id: 'default', endpoint_name: 'hang' }, query: { job_id: jobId } });
  });

  it('without human_in_the_loop the question becomes the failure', async () => {
    const jobId = await startAsk(false);
    expect(await waitForJob(svc, 'ask', jobId, ['failed', 'completed'])).toMatchObject({
      status: 'failed',
      error: "form_data has no key 'colour'",
    });
  });

  it('a job waiting for input can be cancelled', async () => {
    const jobId = await startAsk(true);
    await waitForJob(svc, 'ask', jobId, ['waiting_for_input']);
    expect(
      (
        await svc.request('cancelJob', {
          params: { org_id: 'default', endpoint_name: 'ask' },
          query: { job_id: jobId },
        })
      ).status,
    ).toBe(200);
    expect(await waitForJob(svc, 'ask', jobId, ['cancelled'])).toMatchObject({ status: 'cancelled' });
  });

  it('answer validates its body and query', async () => {
    expect(
      (
        await svc.request('answerJob', {
          params: { org_id: 'default', endpoint_name: 'ask' },
          query: { job_id: 'nope' },
          body: { question_id: '00000000-0000-4000-8000-000000000000', answer: 'x' },
        })
      ).status,
    ).toBe(422);
    const missing = await svc.send('answerJob', {
      params: { org_id: 'default', endpoint_name: 'ask' },
      query: { job_id: '00000000-0000-4000-8000-000000000000' },
      body: { answer: 'x' },
    });
    expect(missing).toEqual({ status: 422, body: { detail: 'body.question_id: is required' } });
    const unknown = await svc.send('answerJob', {
      params: { org_id: 'default', endpoint_name: 'ask' },
      query: { job_id: '00000000-0000-4000-8000-000000000000' },
      body: { question_id: '00000000-0000-4000-8000-000000000000', answer: 'x' },
    });
    expect(unknown).toEqual({ status: 404, body: { detail: 'Job not found' } });
  });
});

// A job on a remote browser host is controlled as a local one (issue 22, "Everything a job does works on a
// remote browser"): human in the loop (the question, the answer resuming it), the live view (frames of the
// remote page, and input reaching it), and cancel (the job ends cancelled and the host's slot comes back).
// The host is a Chromium debugging port in a network namespace (needs root: ip netns, as in CI).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { netnsAvailable } from '../helpers/netns.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { jsonOf, waitForJob } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { type HostRig, startHostRig } from './hostRig.ts';

const FORM = `<!doctype html><title>Colour</title>
<input id="note" aria-label="note" style="position:absolute;left:10px;top:10px;width:300px;height:40px">
<input id="colour" aria-label="colour" style="position:absolute;left:10px;top:80px">
<script>
  document.getElementById('note').addEventListener('change', (e) => {
    fetch('/typed?v=' + encodeURIComponent(e.target.value));
  });
</script>`;

describe.skipIf(!netnsAvailable())(
  'jobs on a remote host: HITL, live view, cancel (needs root: ip netns)',
  { timeout: 120_000 },
  () => {
    let rig: HostRig;
    const typed: { value: string; from: string }[] = [];

    beforeAll(async () => {
      rig = await startHostRig({
        hosts: [{ name: 'cdp-1', engine: 'cdp', max_browsers: 2 }],
        localMaxBrowsers: 0,
        handlers: {
          '/colour': (_req, res) => {
            res.writeHead(200, { 'content-type': 'text/html' }).end(FORM);
          },
          '/typed': (req, res) => {
            typed.push({
              value: new URL(String(req.url), 'http://x').searchParams.get('v') ?? '',
              from: String(req.socket.remoteAddress),
            });
            res.writeHead(204).end();
          },
        },
        service: { agents: scriptedRegistry },
      });
      for (const [name, task] of [
        ['ask', 'script:ask'],
        ['hang', 'script:hang'],
      ] as const) {
        const made = await jsonOf(
          await rig.svc.api('/portals/default', {
            method: 'POST',
            json: { endpoint_name: name, start_url: rig.forms.url('/colour'), task },
          }),
        );
        expect(made.status, JSON.stringify(made.body)).toBe(200);
      }
    });
    afterAll(async () => {
      await rig?.close();
    });

    const inUse = async () => {
      const res = await rig.svc.api('/admin/hosts', {
        key: null,
        headers: { 'x-console-token': rig.svc.consoleToken },
      });
      return ((await res.json()) as { hosts: { name: string; browsers_in_use: number }[] }).hosts.find(
        (h) => h.name === 'cdp-1',
      )?.browsers_in_use;
    };
    const start = async (portal: string, json: Record<string, unknown>) => {
      const res = await jsonOf(await rig.svc.api(`/jobs/default/${portal}/start`, { method: 'POST', json }));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return String((res.body as { job_id: string }).job_id);
    };

    it('asks a human while the remote page is on the live view; input on the live view reaches it; the answer resumes the job there', async () => {
      const jobId = await start('ask', { form_data: {}, human_in_the_loop: true });
      const waiting = await waitForJob(rig.svc, 'ask', jobId, ['waiting_for_input', 'failed']);
      expect(waiting.status, JSON.stringify(waiting.error)).toBe('waiting_for_input');
      expect(await inUse()).toBe(1);
      const liveUrl = String(waiting.browser_url);
      expect(liveUrl.startsWith(rig.svc.url)).toBe(true);

      // Frames of the remote page, streamed over the host connection.
      const controller = new AbortController();
      const frames = await fetch(`${liveUrl}/frames`, { signal: controller.signal });
      const reader = frames.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while (!/event: frame\ndata: .*\n\n/.test(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      controller.abort();
      const frame = JSON.parse(/event: frame\ndata: (.*)\n\n/.exec(text)![1]!) as Record<string, unknown>;
      expect(frame).toMatchObject({ format: 'jpeg' });
      expect(String(frame.data).length).toBeGreaterThan(100);

      // A person's input on the live view lands in the remote page (which reports it from the host's address).
      const input = (json: Record<string, unknown>) =>
        rig.svc.api(`${new URL(liveUrl).pathname}/input`, { method: 'POST', key: null, json });
      expect((await input({ kind: 'mouse', type: 'click', x: 60, y: 30 })).status).toBe(200);
      expect((await input({ kind: 'text', text: 'typed live' })).status).toBe(200);
      expect((await input({ kind: 'mouse', type: 'click', x: 60, y: 90 })).status).toBe(200);
      await until(() => typed.length > 0, 'the typed text to reach the page');
      expect(typed).toEqual([{ value: 'typed live', from: expect.stringContaining(rig.hosts[0]!.address) }]);

      const question = (waiting.events as { type: string; data: { question_id: string } }[]).find(
        (e) => e.type === 'question',
      );
      const answered = await jsonOf(
        await rig.svc.api(`/jobs/default/ask/answer?job_id=${jobId}`, {
          method: 'POST',
          json: { question_id: question!.data.question_id, answer: 'green' },
        }),
      );
      expect(answered.status, JSON.stringify(answered.body)).toBe(200);
      const done = await waitForJob(rig.svc, 'ask', jobId, ['completed', 'failed']);
      expect([done.status, done.result]).toEqual(['completed', { colour: 'green' }]);
      await until(async () => (await inUse()) === 0, 'the slot to come back');
    });

    it('cancel ends a running remote job as cancelled and gives its slot back', async () => {
      const jobId = await start('hang', { form_data: {} });
      await until(async () => {
        const status = await waitForJob(rig.svc, 'hang', jobId, ['running', 'failed']);
        return (status.events as { type: string }[]).some((e) => e.type === 'step') || status.status === 'failed';
      }, 'the remote job to take its first step');
      expect(await inUse()).toBe(1);
      const cancelled = await jsonOf(
        await rig.svc.api(`/jobs/default/hang/cancel?job_id=${jobId}`, { method: 'POST' }),
      );
      expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
      expect((await waitForJob(rig.svc, 'hang', jobId, ['cancelled', 'failed', 'completed'])).status).toBe('cancelled');
      await until(async () => (await inUse()) === 0, 'the slot to come back');
    });
  },
);

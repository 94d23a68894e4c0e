import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { page, startFormServer, type FormServer } from '../helpers/formServer.ts';
import { memorySecrets } from '../helpers/memorySecrets.ts';
import {
  startModelServer,
  type ModelServer,
  type RecordedRequest,
  type ScriptedReply,
} from '../helpers/modelServer.ts';
import { lastTurnText } from '../helpers/modelTurns.ts';
import { startService, waitForJob, type TestService } from '../helpers/service.ts';
import { setEnv } from '../helpers/env.ts';

const HAIKU = 'anthropic:claude-haiku-4-5';
const LOCAL = 'openai-compatible:scripted';

// Labels that share no word (nor lexicon concept) with the keys they belong to.
const FORM = page(
  `<h1>Contact details</h1>
  <form method="post" action="/submit/contact">
    <p><label for="f1">Full name</label> <input id="f1" name="f1"></p>
    <p><label for="f2">Emergency contact telephone</label> <input id="f2" name="f2" type="tel"></p>
    <p><label for="f3">Your case number</label> <input id="f3" name="f3"></p>
    <button type="submit">Send</button>
  </form>`,
  'Contact details',
);

const FORM_DATA = { full_name: 'Ada Lovelace', next_of_kin: '07700 900123', ref: 'CASE-77341' };
const FORM_SCHEMA = {
  type: 'object',
  properties: {
    full_name: { type: 'string', title: 'Full name' },
    next_of_kin: { type: 'string' },
    ref: { type: 'string' },
  },
};

interface JobEvent {
  type: string;
  data: Record<string, unknown>;
}
interface FillReportData {
  placements: Record<string, { control: string; value: string; matched_by: string }>;
  unplaced: Array<{ key: string; reason: string }>;
}

/** The [index] the request listed for the control labelled `label`. */
function controlIndex(request: RecordedRequest, label: string): number {
  const found = lastTurnText(request).match(new RegExp(`\\[(\\d+)\\] \\w+ ${JSON.stringify(label)}`));
  if (!found) throw new Error(`no control "${label}" in:\n${lastTurnText(request)}`);
  return Number(found[1]);
}

/** A model that answers map_fields with `key → control` pairs (a label, or an index as it is). */
function mapper(pairs: Record<string, string | number | null>): (request: RecordedRequest) => ScriptedReply {
  return (request) => ({
    usage: { input: 1000, output: 100 },
    toolCalls: [
      {
        name: 'map_fields',
        input: {
          mappings: Object.entries(pairs).map(([key, to]) => ({
            key,
            control: typeof to === 'string' ? controlIndex(request, to) : to,
          })),
        },
      },
    ],
  });
}

const eventsOf = (job: Record<string, unknown>, type: string): Array<Record<string, unknown>> =>
  (job.events as JobEvent[]).filter((e) => e.type === type).map((e) => e.data);
const fillReportOf = (job: Record<string, unknown>): FillReportData =>
  eventsOf(job, 'fill_report')[0] as unknown as FillReportData;

describe('builtin:autofill assist_model (real service, real SDKs, scripted model server, real Chromium)', () => {
  let svc: TestService;
  let model: ModelServer;
  let forms: FormServer;

  const createPortal = async (name: string, assistModel: string | null) => {
    const res = await svc.send('createPortal', {
      params: { org_id: 'default' },
      body: {
        endpoint_name: name,
        start_url: forms.url('/form'),
        task: 'Send the contact details',
        form_schema: FORM_SCHEMA,
        assist_model: assistModel,
      },
    });
    expect(res.status).toBe(200);
    return res.body as { id: string };
  };
  const run = async (name: string, extra: Record<string, unknown> = {}) => {
    const started = await svc.send('startJob', {
      params: { org_id: 'default', endpoint_name: name },
      body: { form_data: FORM_DATA, orchestrator_model: 'builtin:autofill', ...extra },
    });
    expect(started.status).toBe(200);
    return waitForJob(svc, name, (started.body as { job_id: string }).job_id, ['completed', 'failed'], 60_000);
  };
  const logsOf = async (name: string, job: Record<string, unknown>) =>
    (
      await svc.request('streamJobLogs', {
        params: { org_id: 'default', endpoint_name: name },
        query: { job_id: String(job.job_id) },
      })
    ).text();
  const lastPost = () => forms.postsTo('/submit/contact').at(-1)?.fields;

  let restoreEnv: (() => void) | undefined;
  beforeAll(async () => {
    model = await startModelServer();
    forms = await startFormServer({
      '/form': (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(FORM),
    });
    restoreEnv = setEnv({
      PORTICO_ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
      PORTICO_OPENAI_COMPATIBLE_BASE_URL: model.openaiBaseUrl,
      OPENAI_API_KEY: undefined,
    });
    svc = await startService(undefined, {
      secrets: memorySecrets({ 'provider/anthropic': 'sk-ant-test' }),
      llmRetry: { maxRetries: 1, timeoutMs: 10_000 },
      jobConcurrency: 1,
    });
  });
  afterAll(async () => {
    await svc?.dispose();
    await model?.close();
    await forms?.close();
    restoreEnv?.();
  });

  describe('the portal field', () => {
    it('is null (off) by default, set at create (aliases made canonical), changed and cleared by PATCH, shown by GET', async () => {
      const plain = await svc.send('createPortal', {
        params: { org_id: 'default' },
        body: { endpoint_name: 'api-plain', start_url: forms.url('/form'), task: 't' },
      });
      expect(plain.body).toMatchObject({ assist_model: null });
      const created = await svc.send('createPortal', {
        params: { org_id: 'default' },
        body: {
          endpoint_name: 'api-assist',
          start_url: forms.url('/form'),
          task: 't',
          assist_model: 'claude-haiku-4-5',
        },
      });
      expect(created).toMatchObject({ status: 200, body: { assist_model: HAIKU } });
      expect(
        (await svc.send('getPortal', { params: { org_id: 'default', endpoint_name: 'api-assist' } })).body,
      ).toMatchObject({ assist_model: HAIKU });
      const local = await svc.send('updatePortal', {
        params: { org_id: 'default', endpoint_name: 'api-assist' },
        body: { assist_model: LOCAL },
      });
      expect(local).toMatchObject({ status: 200, body: { assist_model: LOCAL } });
      const kept = await svc.send('updatePortal', {
        params: { org_id: 'default', endpoint_name: 'api-assist' },
        body: { task: 'u' },
      });
      expect(kept.body).toMatchObject({ assist_model: LOCAL, task: 'u' });
      const cleared = await svc.send('updatePortal', {
        params: { org_id: 'default', endpoint_name: 'api-assist' },
        body: { assist_model: null },
      });
      expect(cleared.body).toMatchObject({ assist_model: null });
      expect(
        (await svc.send('getPortal', { params: { org_id: 'default', endpoint_name: 'api-assist' } })).body,
      ).toMatchObject({ assist_model: null });
    });

    it('an unknown model id, or the builtin engine, is a 422 naming the field', async () => {
      for (const id of ['acme:mind-reader', 'gpt-4-turbo', 'builtin:autofill']) {
        const created = await svc.send('createPortal', {
          params: { org_id: 'default' },
          body: { endpoint_name: 'api-bad', start_url: forms.url('/form'), task: 't', assist_model: id },
        });
        expect(created.status).toBe(422);
        expect((created.body as { detail: string }).detail).toMatch(/^body\.assist_model: /);
      }
      const patched = await svc.send('updatePortal', {
        params: { org_id: 'default', endpoint_name: 'api-plain' },
        body: { assist_model: 'acme:mind-reader' },
      });
      expect(patched.status).toBe(422);
      expect((patched.body as { detail: string }).detail).toContain('body.assist_model');
      expect(
        (await svc.send('getPortal', { params: { org_id: 'default', endpoint_name: 'api-plain' } })).body,
      ).toMatchObject({ assist_model: null });
    });
  });

  describe('mapping unmatched keys', () => {
    it('asks the model once, with no form_data value, and places the keys it maps (matched_by model)', async () => {
      await createPortal('contact', HAIKU);
      model.reset((request) =>
        mapper({ next_of_kin: 'Emergency contact telephone', ref: 'Your case number' })(request),
      );
      const job = await run('contact');
      expect(job.status).toBe('completed');
      expect(model.requests).toHaveLength(1);
      expect(lastPost()).toMatchObject({ f1: 'Ada Lovelace', f2: '07700 900123', f3: 'CASE-77341' });
      expect(fillReportOf(job)).toMatchObject({
        placements: {
          full_name: { control: 'Full name', matched_by: 'name' },
          next_of_kin: { control: 'Emergency contact telephone', value: '07700 900123', matched_by: 'model' },
          ref: { control: 'Your case number', value: 'CASE-77341', matched_by: 'model' },
        },
        unplaced: [],
      });
      const [request] = model.requests;
      if (!request) throw new Error('no model request');
      expect(request.body.tools.map((t: { name: string }) => t.name)).toEqual(['map_fields']);
      expect(request.raw).not.toContain('"image"');
      // The model sees key names, kinds and the page's controls — never a value.
      expect(lastTurnText(request)).toContain('"next_of_kin" (text)');
      expect(lastTurnText(request)).toContain('"Emergency contact telephone"');
      for (const value of Object.values(FORM_DATA)) expect(request.raw).not.toContain(value);
      expect(eventsOf(job, 'agent_mode')).toEqual([
        { mode: 'assisted', detail: expect.stringMatching(/mapped 2 of 2 unmatched key\(s\), not from the cache/) },
      ]);
      // 1000 tokens in and 100 out at Haiku's $1 / $5 per million.
      expect(job.session_cost_usd).toBeCloseTo((1000 * 1 + 100 * 5) / 1e6, 9);
    });

    it('the next job on the portal replays the cached mapping: zero model calls, the same placements', async () => {
      model.reset([]);
      const job = await run('contact');
      expect(job.status).toBe('completed');
      expect(model.requests).toHaveLength(0);
      expect(job.session_cost_usd).toBe(0);
      expect(lastPost()).toMatchObject({ f1: 'Ada Lovelace', f2: '07700 900123', f3: 'CASE-77341' });
      expect(fillReportOf(job).placements).toMatchObject({
        next_of_kin: { control: 'Emergency contact telephone', matched_by: 'model' },
        ref: { control: 'Your case number', matched_by: 'model' },
      });
      expect(eventsOf(job, 'agent_mode')).toEqual([
        {
          mode: 'replayed',
          detail: expect.stringMatching(/from the cache: 2 of 2 unmatched key\(s\) mapped, no model calls/),
        },
      ]);
    });

    it('a job with replay: false does not read the cache: it asks the model again', async () => {
      model.reset((request) =>
        mapper({ next_of_kin: 'Emergency contact telephone', ref: 'Your case number' })(request),
      );
      const job = await run('contact', { replay: false });
      expect(job.status).toBe('completed');
      expect(model.requests).toHaveLength(1);
      expect(eventsOf(job, 'agent_mode')).toMatchObject([{ mode: 'assisted' }]);
    });

    it('with assist_model null the model is never asked: the keys end unplaced, as the rules leave them', async () => {
      await createPortal('contact-rules', null);
      model.reset([]);
      const job = await run('contact-rules');
      expect(job.status).toBe('completed');
      expect(model.requests).toHaveLength(0);
      expect(eventsOf(job, 'agent_mode')).toEqual([]);
      expect(lastPost()).toMatchObject({ f1: 'Ada Lovelace', f2: '', f3: '' });
      expect(
        fillReportOf(job)
          .unplaced.map((u) => u.key)
          .sort(),
      ).toEqual(['next_of_kin', 'ref']);
      expect(job.result).toMatchObject({ unplaced: expect.arrayContaining(['next_of_kin', 'ref']) });
    });

    it('a key mapped to a control the page does not have is ignored; the valid mapping is kept (OpenAI-compatible SDK)', async () => {
      await createPortal('contact-odd', LOCAL);
      model.reset((request) => mapper({ next_of_kin: 99, ref: 'Your case number', nobody: 0 })(request));
      const job = await run('contact-odd');
      expect(job.status).toBe('completed');
      expect(model.requests).toHaveLength(1);
      expect(model.requests[0]?.api).toBe('openai');
      expect(lastPost()).toMatchObject({ f2: '', f3: 'CASE-77341' });
      expect(fillReportOf(job).placements).toMatchObject({ ref: { matched_by: 'model' } });
      expect(fillReportOf(job).unplaced.map((u) => u.key)).toEqual(['next_of_kin']);
      const logs = await logsOf('contact-odd', job);
      expect(logs).toContain('control 99, which the page does not have');
      expect(logs).toContain("unknown key 'nobody'");
    });

    it('two keys mapped to one control are both dropped', async () => {
      model.reset((request) => mapper({ next_of_kin: 'Your case number', ref: 'Your case number' })(request));
      const job = await run('contact-odd', { replay: false });
      expect(job.status).toBe('completed');
      expect(lastPost()).toMatchObject({ f2: '', f3: '' });
      expect(
        fillReportOf(job)
          .unplaced.map((u) => u.key)
          .sort(),
      ).toEqual(['next_of_kin', 'ref']);
      expect(await logsOf('contact-odd', job)).toContain("'next_of_kin' and 'ref', all mapped to control");
    });
  });

  describe('when the model cannot help, the job runs on its rules', () => {
    let downPortals = 0;
    it.each([
      [
        'a 500 (after the SDK retry)',
        { status: 500 },
        /assist model anthropic:claude-haiku-4-5 unavailable, the rules alone place the keys: /,
      ],
      [
        'a 401',
        { status: 401, error: 'invalid x-api-key' },
        /assist model anthropic:claude-haiku-4-5 unavailable, the rules alone place the keys: .*401/,
      ],
      [
        'an answer with no map_fields call',
        { text: 'next_of_kin is surely the telephone' },
        /gave no usable map_fields answer; the rules alone place the keys/,
      ],
    ] as const)('%s: one log line, the keys unplaced, nothing cached', async (_what, reply, logLine) => {
      downPortals += 1;
      const name = `down-${downPortals}`;
      await createPortal(name, HAIKU);
      model.reset(() => reply as ScriptedReply);
      const job = await run(name);
      expect(job.status).toBe('completed');
      expect(model.requests.length).toBeGreaterThan(0);
      expect(
        fillReportOf(job)
          .unplaced.map((u) => u.key)
          .sort(),
      ).toEqual(['next_of_kin', 'ref']);
      expect(eventsOf(job, 'agent_mode')).toEqual([]);
      const logs = await logsOf(name, job);
      expect(logs.split('\n').filter((line) => logLine.test(line))).toHaveLength(1);
      // Nothing was cached: the next job asks again.
      model.reset((request) =>
        mapper({ next_of_kin: 'Emergency contact telephone', ref: 'Your case number' })(request),
      );
      const again = await run(name);
      expect(model.requests).toHaveLength(1);
      expect(fillReportOf(again).placements).toMatchObject({
        next_of_kin: { matched_by: 'model' },
        ref: { matched_by: 'model' },
      });
    });

    it('a provider with no key: one log line, no call, the job completes on its rules', async () => {
      await createPortal('no-key', 'openai:gpt-5.4-mini');
      model.reset([]);
      const job = await run('no-key');
      expect(job.status).toBe('completed');
      expect(model.requests).toHaveLength(0);
      expect(await logsOf('no-key', job)).toMatch(
        /assist model openai:gpt-5\.4-mini unavailable, the rules alone place the keys: Model 'openai:gpt-5\.4-mini' is not configured: no API key/,
      );
    });
  });

  it('deleting a portal deletes its cached mappings', async () => {
    const portal = (await svc.send('getPortal', { params: { org_id: 'default', endpoint_name: 'contact' } })).body as {
      id: string;
    };
    const db = new Database(join(svc.dataDir, 'portico.db'), { readonly: true });
    const count = () =>
      (db.prepare('SELECT COUNT(*) AS n FROM autofill_mappings WHERE portal_id = ?').get(portal.id) as { n: number }).n;
    try {
      expect(count()).toBe(1);
      expect(
        (await svc.request('deletePortal', { params: { org_id: 'default', endpoint_name: 'contact' } })).status,
      ).toBe(204);
      expect(count()).toBe(0);
    } finally {
      db.close();
    }
  });
});

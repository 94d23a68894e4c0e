import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src-main/store/store.ts';
import { cli } from '../helpers/cli.ts';
import { startPageServer, type PageServer } from '../helpers/pageServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import { startService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

/** Fair slots (issue 21, item 6): a job waiting for a human holds no running slot; organizations start jobs in turn. */
describe('fair job slots', () => {
  let pages: PageServer;
  beforeAll(async () => {
    pages = await startPageServer({ '/form': '<!doctype html><title>Q</title><input id="colour">' });
  });
  afterAll(() => pages.close());

  /** A service with orgs `default`, plus `others`, each with the scripted portals `ask`, `hang` and `visit`. */
  const world = async (concurrency: number, others: string[]) => {
    const svc = await startService(undefined, { agents: scriptedRegistry, jobConcurrency: concurrency });
    const keys: Record<string, string> = { default: svc.orgKey };
    for (const org of others) keys[org] = String((await cli(svc.dataDir, ['org', 'create', org])).json.api_key);
    for (const [org, key] of Object.entries(keys)) {
      for (const script of ['ask', 'hang', 'visit']) {
        const made = await svc.request(
          'createPortal',
          {
            params: { org_id: org },
            body: { endpoint_name: script, start_url: `${pages.url}/form`, task: `script:${script}` },
          },
          { key },
        );
        expect(made.status).toBe(200);
      }
    }
    const start = async (org: string, endpoint: string, body: Record<string, unknown> = {}) =>
      String(
        (
          (
            await svc.send(
              'startJob',
              { params: { org_id: org, endpoint_name: endpoint }, body: { form_data: {}, ...body } },
              { key: keys[org] },
            )
          ).body as { job_id: string }
        ).job_id,
      );
    const read = async (org: string, endpoint: string, jobId: string) =>
      (
        await svc.send(
          'getJobStatus',
          { params: { org_id: org, endpoint_name: endpoint }, query: { job_id: jobId } },
          { key: keys[org] },
        )
      ).body as { status: string; error?: unknown };
    const status = async (org: string, endpoint: string, jobId: string) =>
      String((await read(org, endpoint, jobId)).status);
    /** Waits for `wanted`; a job that ends otherwise fails the test at once, saying how it ended. */
    const reaches = (org: string, endpoint: string, jobId: string, wanted: string) =>
      until(
        async () => {
          const seen = await read(org, endpoint, jobId);
          if (seen.status === wanted) return true;
          if (['completed', 'failed', 'cancelled'].includes(seen.status))
            throw new Error(`${org}/${endpoint} ${jobId} ended ${JSON.stringify(seen)}, not ${wanted}`);
          return false;
        },
        `${org}/${endpoint} ${jobId} to be ${wanted}`,
        60_000,
      );
    return { svc, keys, start, status, reaches };
  };

  it("two jobs of one org waiting for input leave the slots to another org's job (concurrency 2), whose browser opens beside theirs", async () => {
    const { svc, start, status, reaches } = await world(2, ['rival']);
    try {
      const waiting = [
        await start('default', 'ask', { human_in_the_loop: true }),
        await start('default', 'ask', { human_in_the_loop: true }),
      ];
      for (const jobId of waiting) await reaches('default', 'ask', jobId, 'waiting_for_input');
      const other = await start('rival', 'visit');
      await reaches('rival', 'visit', other, 'completed');
      // The waiting jobs kept their browsers and their questions.
      for (const jobId of waiting) expect(await status('default', 'ask', jobId)).toBe('waiting_for_input');
    } finally {
      await svc.dispose();
    }
  });

  it('queued jobs start in per-organization round robin: a backlog of one org does not go first (three orgs, concurrency 1)', async () => {
    const { svc, start, reaches } = await world(1, ['org-b', 'org-c']);
    try {
      // One running job holds the only slot while the queue fills: three of `default`, two of org-b, one of org-c, oldest first.
      const blocker = await start('default', 'hang');
      await reaches('default', 'hang', blocker, 'running');
      const queued: [string, string][] = [];
      for (const org of ['default', 'default', 'default', 'org-b', 'org-b', 'org-c'])
        queued.push([org, await start(org, 'visit')]);
      await svc.request('cancelJob', {
        params: { org_id: 'default', endpoint_name: 'hang' },
        query: { job_id: blocker },
      });
      for (const [org, jobId] of queued) await reaches(org, 'visit', jobId, 'completed');
      const store = openStore(`${svc.dataDir}/portico.db`);
      try {
        const order = store.db
          .prepare<[string], { org_id: string }>(
            'SELECT org_id FROM jobs WHERE endpoint_name = ? ORDER BY started_at, rowid',
          )
          .all('visit')
          .map((row) => row.org_id);
        // After `default`'s blocker: org-b, org-c, default, org-b, default, default.
        expect(order).toEqual(['org-b', 'org-c', 'default', 'org-b', 'default', 'default']);
      } finally {
        store.close();
      }
    } finally {
      await svc.dispose();
    }
  });
});

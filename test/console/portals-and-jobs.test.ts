import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { contrastOf, makePortal, runJob, snap, useConsoleWorld } from './harness.ts';

const SIZE_SCHEMA = {
  type: 'object',
  properties: { full_name: { type: 'string', title: 'Full name' }, size: { enum: ['S', 'M', 'L'] } },
  required: ['full_name'],
};

describe('portals and jobs: create, run, watch, download', () => {
  const world = useConsoleWorld();

  it('creates a portal through the forms, validating the schema as it is typed', async () => {
    const page = await world.openConsole({ hash: '#/portals/new' });
    const endpoint = world.unique('colours');
    await page.getByLabel('Endpoint name').fill(endpoint);
    await page.getByLabel('Start URL').fill(world.pages.url('/form'));
    await page.getByLabel('Task').fill('script:visit');
    const schema = page.getByLabel(/^Form schema/);
    await schema.fill('{"type": "object", "properties": ');
    await page.getByText(/^Not valid JSON/).waitFor();
    expect(await page.getByRole('button', { name: 'Create portal' }).isDisabled()).toBe(true);
    await schema.fill(JSON.stringify(SIZE_SCHEMA, null, 2));
    await page.getByText('Valid JSON Schema').waitFor();
    expect(await contrastOf(page.getByText('Valid JSON Schema'))).toBeGreaterThanOrEqual(4.5);
    await expect.poll(() => page.getByLabel('Form preview').getByLabel('Full name').count()).toBe(1);
    await snap(page, 'portal-new');
    await page.getByRole('button', { name: 'Create portal' }).click();
    await page.getByRole('form', { name: 'Run a job' }).waitFor();
    const stored = (await (
      await world.svc.request('getPortal', { params: { org_id: 'default', endpoint_name: endpoint } })
    ).json()) as { task: string };
    expect(stored.task).toBe('script:visit');
  });

  it('runs a job from the generated form, watches it complete and opens its screenshots', async () => {
    const endpoint = world.unique('run-form');
    await makePortal(world, endpoint, 'script:visit', { form_schema: SIZE_SCHEMA });
    const page = await world.openConsole({ hash: `#/portals/${endpoint}` });
    await page.getByLabel('Full name').fill('Ada Lovelace');
    await page.getByLabel('size').selectOption('M');
    await snap(page, 'portal-run');
    await page.getByRole('button', { name: 'Run a job' }).click();
    await page.getByText('Completed', { exact: true }).first().waitFor({ timeout: 20_000 });
    await page.getByLabel('Result JSON').getByText('Ada Lovelace').waitFor();
    expect(await page.getByTestId('steps').textContent()).toBe('2');
    await page.getByTestId('log').getByText('title is Colour form').waitFor();
    await page.getByRole('button', { name: /^Step 2 screenshot/ }).click();
    const large = page.getByTestId('screenshot-large');
    await expect.poll(() => large.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);
    await snap(page, 'job-completed');
    await page.getByRole('link', { name: 'Jobs', exact: true }).click();
    await page.getByRole('table').getByText(endpoint).waitFor();
    await snap(page, 'jobs');
  });

  it("downloads the job's fetched files and its screenshots with the token, staying on the console", async () => {
    const endpoint = world.unique('fetcher');
    await makePortal(world, endpoint, 'script:download', { start: '/fetch' });
    const jobId = await runJob(world, endpoint, { form_data: {} }, ['completed']);
    const page = await world.openConsole({ hash: `#/jobs/${endpoint}/${jobId}` });
    const consoleUrl = page.url();
    const bytesOf = async (name: string): Promise<Buffer> => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name }).click()]);
      return readFileSync(await download.path());
    };
    const zip = await bytesOf('Download the files this job fetched');
    expect(zip.subarray(0, 4)).toEqual(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
    const tgz = await bytesOf('Download screenshots');
    expect(tgz.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(page.url()).toBe(consoleUrl);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    expect(await page.getByText('Invalid API key').count()).toBe(0);
  });

  it('stops polling a finished job, pauses in a hidden tab, and backs off with a banner while Portico is unreachable', async () => {
    const endpoint = world.unique('polled');
    await makePortal(world, endpoint, 'script:visit');
    const jobId = await runJob(world, endpoint, { form_data: {} }, ['completed']);
    // The console's timers run on the page's fake clock: the windows below are moved through, not waited out.
    const tab = await world.openConsole({ clock: true });
    // `at`: page time (ms moved since the clock paused) when the request was seen.
    let pageMs = 0;
    const requests: { url: string; at: number }[] = [];
    tab.on('request', (r) => requests.push({ url: r.url(), at: pageMs }));
    /** Moves page time on in small steps, so what a step's timers start can answer before the next. */
    const advance = async (ms: number) => {
      for (let done = 0; done < ms; done += 250) {
        await tab.clock.runFor(250);
        pageMs += 250;
      }
    };
    const count = (part: string) => requests.filter((r) => r.url.includes(part)).length;
    await tab.evaluate((hash) => {
      window.location.hash = hash;
    }, `#/jobs/${endpoint}/${jobId}`);
    await tab.getByText('Completed', { exact: true }).first().waitFor();
    const statusOf = `status?job_id=${jobId}`;
    const afterDone = count(statusOf);
    expect(afterDone).toBeGreaterThan(0);
    // From here the page's time moves only when the test moves it.
    await tab.clock.pauseAt(Date.now() + 1000);
    // The pending-question poll (every 3 s) is the measure: two more of those, and still no status request
    // (a job page still polling asks every second). Each poll's next timer is set once its answer is in.
    const questionPolls = count('status=waiting_for_input');
    for (const more of [1, 2]) {
      await advance(3000);
      await expect.poll(() => count('status=waiting_for_input')).toBeGreaterThanOrEqual(questionPolls + more);
    }
    expect(count(statusOf)).toBe(afterDone);

    // A hidden tab makes no requests at all; shown again, it refreshes at once.
    await tab.getByRole('link', { name: 'Jobs', exact: true }).click();
    await tab.getByRole('table').waitFor();
    const setVisibility = (state: 'hidden' | 'visible') =>
      tab.evaluate((s) => {
        Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => s });
        document.dispatchEvent(new Event('visibilitychange'));
      }, state);
    await setVisibility('hidden');
    // Let any request already under way (or its timer) finish, then a window longer than every poll interval.
    await advance(3500);
    const hiddenFrom = requests.length;
    await advance(4000);
    expect(requests.slice(hiddenFrom).map((r) => r.url)).toEqual([]);
    await setVisibility('visible');
    await expect.poll(() => requests.length).toBeGreaterThan(hiddenFrom);

    // The service stops answering: a banner, and retries of the job list that come less and less often
    // (measured in page time: every 2 s, then 4, 8, 16 s apart).
    const list = '/jobs/default/summary?limit=200';
    await tab.route(`${world.svc.url}/jobs/**`, (route) => route.abort('connectionrefused'));
    // Requests seen at `failedFrom` itself were sent before the route (page time has not moved since).
    const failedFrom = pageMs;
    const attempts = () => requests.filter((r) => r.url.includes(list) && r.at > failedFrom).map((r) => r.at);
    while (attempts().length < 3 && pageMs - failedFrom < 60_000) await advance(250);
    await tab.getByRole('alert').getByText('Portico is not reachable.').waitFor();
    const [a, b, c] = attempts() as [number, number, number];
    expect(c - b).toBeGreaterThan((b - a) * 1.5);
    expect(b - a).toBeGreaterThanOrEqual(3500);
    await tab.unroute(`${world.svc.url}/jobs/**`);
    const banner = () => tab.getByText('Portico is not reachable.').count();
    for (const since = pageMs; (await banner()) > 0 && pageMs - since < 60_000; ) await advance(1000);
    expect(await banner()).toBe(0);
    await tab.getByRole('table').getByText(endpoint).first().waitFor();
    await snap(tab, 'jobs-after-recovery');
  }, 90_000);

  it("the filmstrip fetches each step's screenshot once as new steps arrive", async () => {
    const endpoint = world.unique('filmstrip');
    await makePortal(world, endpoint, 'script:visit');
    const jobId = await runJob(world, endpoint, { form_data: {} }, ['completed']);
    const page = await world.openConsole();
    // No pushed status (the log stream is refused), so the page polls: the filmstrip follows the polled steps.
    await page.route(/\/logs\?job_id=/, (route) => route.abort('connectionrefused'));
    // The status is replayed as it was while the job ran: one step, one step again, then done with two.
    let served = 0;
    await page.route(`**/status?job_id=${jobId}`, async (route) => {
      const real = (await (await route.fetch()).json()) as Record<string, unknown>;
      served += 1;
      const body = served <= 2 ? { ...real, status: 'running', steps: 1, completed_at: null } : real;
      await route.fulfill({ json: body });
    });
    const shots: number[] = [];
    page.on('request', (r) => {
      const match = new RegExp(`/screenshots/(\\d+)\\?job_id=${jobId}`).exec(r.url());
      if (match) shots.push(Number(match[1]));
    });
    await page.evaluate((hash) => {
      window.location.hash = hash;
    }, `#/jobs/${endpoint}/${jobId}`);
    await page.getByRole('button', { name: /^Step 2 screenshot/ }).waitFor({ timeout: 15_000 });
    expect(served).toBeGreaterThanOrEqual(3);
    await page.getByRole('button', { name: /^Step 2 screenshot/ }).click();
    await expect
      .poll(() => page.getByTestId('screenshot-large').evaluate((img: HTMLImageElement) => img.naturalWidth))
      .toBeGreaterThan(100);
    expect(shots.sort()).toEqual([0, 1]);
    expect(
      await page
        .getByRole('list', { name: 'Step screenshots' })
        .locator('img')
        .evaluateAll((imgs) => imgs.map((i) => i.getAttribute('loading'))),
    ).toEqual(['lazy', 'lazy']);
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makePortal, runJob, seriousAxeViolations, skillZip, useConsoleWorld, watchNetwork } from './harness.ts';

describe('axe-core finds no serious or critical WCAG 2 A/AA violation on any console page', () => {
  const world = useConsoleWorld();

  it('every page, with data in it, at desktop and narrow widths', async () => {
    const [endpoint, failing, asking] = [world.unique('checked'), world.unique('failing'), world.unique('asking')];
    // The data every page shows, made at once: each part waits only on its own job, browser or run.
    const [done, failed, waiting, bundle, { workflow, run }] = await Promise.all([
      makePortal(world, endpoint, 'script:visit', {
        form_schema: {
          type: 'object',
          properties: { full_name: { type: 'string', title: 'Full name' }, size: { enum: ['S', 'M'] } },
          required: ['full_name'],
        },
      }).then(() => runJob(world, endpoint, { form_data: { full_name: 'Ada' } }, ['completed'])),
      makePortal(world, failing, 'script:fail').then(() => runJob(world, failing, { form_data: {} }, ['failed'])),
      makePortal(world, asking, 'script:ask').then(() =>
        runJob(world, asking, { form_data: {}, human_in_the_loop: true }, ['waiting_for_input']),
      ),
      (async () => {
        await world.api.call('openProfileSession', {
          params: { org_id: 'default' },
          body: { name: 'Checked profile', start_url: world.pages.url('/login') },
        });
        const zip = await skillZip(world.scratch, 'a11y.zip', 'A skill for the accessibility check');
        const form = new FormData();
        form.append('file', new Blob([new Uint8Array(readFileSync(zip))]), 'a11y.zip');
        expect((await world.svc.api('/skills/default?folder=checks', { method: 'POST', body: form })).status).toBe(200);
        const documents = new FormData();
        documents.append('files', new Blob(['City,Phone\nLeeds,0113 496 0002\n'], { type: 'text/csv' }), 'address.csv');
        const uploaded = await world.svc.api('/documents/default', { method: 'POST', body: documents });
        expect(uploaded.status).toBe(200);
        const session = await world.api.call('createSession', { body: { timeout_minutes: 10 } });
        expect(session.status).toBe('active');
        await world.api.call('createCredential', {
          body: { service_name: 'Checked site', username_or_email: 'ada@example.com', password: 'a11y-password' },
        });
        await world.api.call('addOAuthApp', {
          body: { id: 'google', client_id: 'a11y-client', client_secret: 'a11y-secret' },
        });
        return ((await uploaded.json()) as { document_bundle_id: string }).document_bundle_id;
      })(),
      (async () => {
        const workflow = await world.api.call('createWorkflow', {
          body: {
            name: 'Checked workflow',
            steps: [{ action: `go to ${world.pages.url('/login')}` }, { action: 'click Continue' }],
          },
        });
        const run = await world.api.call('runWorkflow', {
          params: { workflow_id: workflow.id },
          body: { variables: {} },
        });
        await expect
          .poll(
            async () =>
              (
                await world.api.call('getWorkflowExecution', {
                  params: { workflow_id: workflow.id, execution_id: run.id },
                })
              ).status,
            { timeout: 60_000 },
          )
          .toBe('failed');
        return { workflow, run };
      })(),
    ]);

    const pages = [
      '#/jobs',
      `#/jobs/${endpoint}/${done}`,
      `#/jobs/${failing}/${failed}`,
      `#/jobs/${asking}/${waiting}`,
      '#/portals',
      '#/portals/new',
      `#/portals/${endpoint}`,
      `#/portals/${endpoint}/edit`,
      '#/profiles',
      '#/skills',
      '#/settings',
      '#/sessions',
      '#/sessions/cache',
      '#/credentials',
      '#/accounts',
      '#/workflows',
      `#/workflows/${workflow.id}`,
      `#/workflows/${workflow.id}/${run.id}`,
      '#/documents',
      `#/documents/${bundle}`,
    ];
    const found: string[] = [];
    for (const width of [1280, 600]) {
      const page = await world.openConsole({ width, height: 900 });
      const network = watchNetwork(page);
      for (const hash of pages) {
        await page.evaluate((h) => {
          window.location.hash = h;
        }, hash);
        await page.locator('main#main h1').first().waitFor();
        // Its data loaded: nothing in flight (a waiting job's open log stream aside), no "Loading" placeholder.
        await network.settled();
        // A violation counts when a second run a moment later still finds it (not a frame caught mid-render).
        const first = await seriousAxeViolations(page);
        const persistent =
          first.length === 0
            ? []
            : await (async () => {
                await page.waitForTimeout(1000);
                const again = await seriousAxeViolations(page);
                return again.filter((v) => first.some((f) => f.id === v.id));
              })();
        for (const violation of persistent)
          found.push(
            `${width}px ${hash}: ${violation.impact} ${violation.id} (${violation.help}) at ${violation.targets.slice(0, 3).join(', ')}`,
          );
      }
    }
    // The connect screen, before any token.
    const stranger = await world.browser.newPage();
    await stranger.goto(`${world.svc.url}/`);
    await stranger.getByLabel('Console URL or token').waitFor();
    for (const violation of await seriousAxeViolations(stranger))
      found.push(`connect: ${violation.impact} ${violation.id} at ${violation.targets.join(', ')}`);
    await stranger.close();
    expect(found).toEqual([]);
  }, 180_000);
});

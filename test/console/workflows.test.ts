import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { snap, useConsoleWorld } from './harness.ts';

interface StepBody {
  index: number;
  action: string;
  success: boolean | null;
  used_cache: boolean;
  screenshot_url: string | null;
}
interface ExecutionBody {
  id: string;
  status: string;
  session_id: string | null;
  error: string | null;
  steps: StepBody[];
}

describe('Workflows page: create from JSON steps, run, executions, step timeline with screenshots, resume (issue 12)', () => {
  const world = useConsoleWorld();
  const asAccount = (path: string, init: { method?: string; json?: unknown } = {}) =>
    world.svc.api(path, { key: world.svc.accountKey, ...init });
  const execution = async (workflowId: string, executionId: string) =>
    (await (await asAccount(`/public/workflows/${workflowId}/executions/${executionId}`)).json()) as ExecutionBody;
  const ids = (url: string) => {
    const [, , workflowId = '', executionId = ''] = new URL(url).hash.split('/');
    return { workflowId, executionId };
  };

  it("creates a workflow from JSON, runs it with a parameter, shows each step's outcome, duration and screenshot, and the cache on the second run", async () => {
    const page = await world.openConsole({ hash: '#/workflows' });
    await page.getByText('No workflows yet').waitFor();
    const form = page.getByRole('form', { name: 'New workflow' });

    // Malformed JSON is caught before it is sent; a wrong shape is the server's 422 detail.
    await form.getByLabel('Name', { exact: true }).fill('Open my account');
    await form.getByLabel('Steps (JSON)', { exact: true }).fill('[{ "action": ');
    await form.getByRole('button', { name: 'Create workflow' }).click();
    await page.getByRole('alert').filter({ hasText: 'Steps is not valid JSON' }).waitFor();
    await form.getByLabel('Steps (JSON)', { exact: true }).fill('[{ "action": "type {{who}} into user" }]');
    await form.getByLabel('Parameters (JSON, optional)', { exact: true }).fill('{ "name": null }');
    await form.getByRole('button', { name: 'Create workflow' }).click();
    await page.getByRole('alert').filter({ hasText: "variable 'who' is not declared in parameters" }).waitFor();
    expect(((await (await asAccount('/public/workflows')).json()) as { workflows: unknown[] }).workflows).toEqual([]);

    const steps = [
      { action: `go to ${world.pages.url('/login')}` },
      { action: 'type {{name}} into user' },
      { action: 'click My account' },
    ];
    await form.getByLabel('Steps (JSON)', { exact: true }).fill(JSON.stringify(steps, null, 2));
    await form.getByRole('button', { name: 'Create workflow' }).click();
    await page.getByRole('heading', { name: 'Open my account' }).waitFor();
    await page.getByText('Not run yet').waitFor();

    // The required parameter is a required field; the run opens its execution page.
    await page.getByLabel('name', { exact: true }).fill('ada');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForURL(/#\/workflows\/[^/]+\/[^/]+$/);
    const first = ids(page.url());
    const status = page.getByTestId('execution-status');
    await expect.poll(() => status.innerText(), { timeout: 60_000 }).toBe('Completed');
    const timeline = page.getByRole('list', { name: 'Steps' });
    const items = timeline.locator('li[data-step]');
    expect(await items.count()).toBe(3);
    const stored = await execution(first.workflowId, first.executionId);
    expect(stored.status).toBe('completed');
    for (const [index, step] of stored.steps.entries()) {
      const item = items.nth(index);
      expect(await item.innerText()).toContain(step.action);
      expect(await item.getByTestId('step-outcome').innerText()).toBe('Succeeded');
      expect(await item.getByTestId('step-duration').innerText()).toMatch(/\d/);
      expect(await item.getByTestId('step-cache').count()).toBe(step.used_cache ? 1 : 0);
      // The screenshot the workflows API serves for that step, loaded and drawn.
      expect(step.screenshot_url).not.toBeNull();
      const shot = item.getByRole('img', { name: `The page after step ${index + 1}` });
      await expect
        .poll(() => shot.evaluate((img) => (img as HTMLImageElement).naturalWidth), { timeout: 15_000 })
        .toBeGreaterThan(100);
    }
    expect(stored.steps[1]?.action).toBe('type {{name}} into user');
    await snap(page, 'workflow-execution');

    // A second run replays the resolved steps from the cache, and the timeline says so.
    await page.getByRole('link', { name: '← All executions of this workflow' }).click();
    await page.getByLabel('name', { exact: true }).fill('ada');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForURL(
      (url) => !url.hash.endsWith(first.executionId) && /#\/workflows\/[^/]+\/[^/]+$/.test(url.hash),
    );
    const second = ids(page.url());
    await expect.poll(() => status.innerText(), { timeout: 60_000 }).toBe('Completed');
    const replayed = await execution(second.workflowId, second.executionId);
    expect(replayed.steps.some((s) => s.used_cache)).toBe(true);
    for (const [index, step] of replayed.steps.entries())
      expect(await items.nth(index).getByTestId('step-cache').count()).toBe(step.used_cache ? 1 : 0);

    // Both runs are in the executions list, newest first, each linking to its page.
    await page.getByRole('link', { name: '← All executions of this workflow' }).click();
    const rows = page.locator('tr[data-execution]');
    await expect
      .poll(() => rows.evaluateAll((all) => all.map((r) => r.getAttribute('data-execution'))))
      .toEqual([second.executionId, first.executionId]);
    expect(await rows.first().getByTestId('execution-status').innerText()).toBe('Completed');
    await page.getByRole('link', { name: 'All workflows' }).click();
    expect(await page.locator(`tr[data-workflow="${first.workflowId}"]`).innerText()).toContain('Open my account');
  }, 150_000);

  it('a failed execution shows which step failed and why; Resume re-runs from that step in the same session and completes', async () => {
    const made = (await (
      await asAccount('/public/workflows', {
        method: 'POST',
        json: {
          name: 'Needs a hand',
          steps: [{ action: `go to ${world.pages.url('/login')}` }, { action: 'click Continue' }],
        },
      })
    ).json()) as { id: string };
    const page = await world.openConsole({ hash: `#/workflows/${made.id}` });
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForURL(/#\/workflows\/[^/]+\/[^/]+$/);
    const { executionId } = ids(page.url());
    await expect.poll(() => page.getByTestId('execution-status').innerText(), { timeout: 90_000 }).toBe('Failed');
    const failed = await execution(made.id, executionId);
    expect(failed.steps.map((s) => s.success)).toEqual([true, false]);
    expect(await page.getByTestId('execution-error').innerText()).toBe(failed.error);
    const items = page.locator('li[data-step]');
    expect(await items.nth(0).getByTestId('step-outcome').innerText()).toBe('Succeeded');
    expect(await items.nth(1).getByTestId('step-outcome').innerText()).toBe('Failed');
    expect(await items.nth(1).innerText()).toContain(failed.steps[1]?.action ?? '');

    // Someone adds the missing button in the session's browser, then resumes from the console.
    const session = (await (await asAccount(`/public/sessions/${failed.session_id}`)).json()) as { cdp_url: string };
    const client = await chromium.connectOverCDP(session.cdp_url);
    await client
      .contexts()[0]
      ?.pages()[0]
      ?.evaluate(() => {
        const button = document.createElement('button');
        button.textContent = 'Continue';
        document.body.append(button);
      });
    await client.close();
    await page.getByRole('button', { name: 'Resume from the failed step' }).click();
    await expect.poll(() => page.getByTestId('execution-status').innerText(), { timeout: 90_000 }).toBe('Completed');
    const done = await execution(made.id, executionId);
    expect(done.steps.map((s) => s.success)).toEqual([true, true]);
    expect(await items.nth(1).getByTestId('step-outcome').innerText()).toBe('Succeeded');
    expect(await page.getByRole('button', { name: 'Resume from the failed step' }).count()).toBe(0);
  }, 200_000);
});

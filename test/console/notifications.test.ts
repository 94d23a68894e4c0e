import { describe, expect, it } from 'vitest';
import { advanceUntil, makePortal, runJob, useConsoleWorld } from './harness.ts';

declare global {
  interface Window {
    /** Every Notification the page constructed (the browser's own class, recorded as it is called). */
    __shown?: Notification[];
  }
}

describe('desktop notifications for pending questions, opted in under Settings (issue 10 item 2)', () => {
  // Desktop notifications need the whole browser: the headless shell answers no permission prompt.
  const world = useConsoleWorld({ fullChromium: true });

  it('announces each new question (also from a hidden tab), opens the job when clicked, and stops when turned off', async () => {
    // Another org with a question already waiting, and room for every job of the test to run at once.
    await world.api.call('updateSettings', { body: { job_concurrency: 6 } });
    await world.api.call('createOrg', { body: { org_id: 'elsewhere', name: 'Elsewhere' } });
    const otherEndpoint = world.unique('other-asks');
    await world.api.call('createPortal', {
      params: { org_id: 'elsewhere' },
      body: { endpoint_name: otherEndpoint, start_url: world.pages.url('/form'), task: 'script:ask', form_schema: {} },
    });
    const askElsewhere = async () => {
      const params = { org_id: 'elsewhere', endpoint_name: otherEndpoint };
      const { job_id } = await world.api.call('startJob', { params, body: { form_data: {}, human_in_the_loop: true } });
      await expect
        .poll(async () => (await world.api.call('getJobStatus', { params, query: { job_id } })).status, {
          timeout: 30_000,
        })
        .toBe('waiting_for_input');
      return job_id;
    };
    await askElsewhere();
    // The console's timers on the page's fake clock: each question poll (every 3 s) comes when the test moves time.
    const page = await world.openConsole({ hash: '#/settings', clock: true });
    await page.context().grantPermissions(['notifications'], { origin: world.svc.url });
    // Records each notification while still constructing the browser's real one.
    await page.context().addInitScript(() => {
      const Real = window.Notification;
      window.__shown = [];
      class Recorded extends Real {
        constructor(title: string, options?: NotificationOptions) {
          super(title, options);
          window.__shown?.push(this);
        }
      }
      Object.defineProperty(window, 'Notification', { value: Recorded, configurable: true, writable: true });
    });
    await page.reload();
    await page.clock.pauseAt(Date.now() + 1000);
    const box = page.getByLabel('Notify me on this computer when a job asks a question');
    await box.check();
    await page.getByTestId('notify-status').getByText('On in this browser').waitFor();
    expect(await page.evaluate(() => localStorage.getItem('portico.notifyQuestions'))).toBe('1');

    const endpoint = world.unique('asks');
    await makePortal(world, endpoint, 'script:ask');
    let polled = false;
    void page
      .waitForResponse((r) => r.url().includes('status=waiting_for_input'))
      .then(() => {
        polled = true;
      });
    await page.evaluate(() => {
      window.location.hash = '#/jobs';
    });
    await advanceUntil(page, () => polled, 'a pending-question poll');
    const shown = () =>
      page.evaluate(() => (window.__shown ?? []).map((n) => ({ title: n.title, body: n.body, tag: n.tag })));
    const shownTags = async () => (await shown()).map((n) => n.tag).join(' ');

    const first = await runJob(world, endpoint, { form_data: {}, human_in_the_loop: true }, ['waiting_for_input']);
    await advanceUntil(page, async () => (await shown()).length > 0, 'the first notification');
    expect(await shown()).toEqual([
      { title: `${endpoint} needs your answer`, body: 'Which colour?', tag: `portico-question-${first}` },
    ]);

    // A hidden tab keeps checking while notifications are on: that is when they matter.
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    const second = await runJob(world, endpoint, { form_data: {}, human_in_the_loop: true }, ['waiting_for_input']);
    await advanceUntil(page, async () => (await shown()).length > 1, 'the second notification, from a hidden tab');
    expect((await shown()).map((n) => n.tag)).toEqual([`portico-question-${first}`, `portico-question-${second}`]);
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
      document.dispatchEvent(new Event('visibilitychange'));
    });

    // Clicking the notification opens that job, its question ready to answer.
    await page.evaluate(() => window.__shown?.[1]?.dispatchEvent(new Event('click')));
    await expect.poll(() => page.url()).toContain(`#/jobs/${endpoint}/${second}`);
    await page.getByTestId('question-card').waitFor();

    // Turned off: a new question shows in the console (badge) but not on the desktop.
    await page.evaluate(() => {
      window.location.hash = '#/settings';
    });
    await box.uncheck();
    await page.getByTestId('notify-status').getByText('Off.').waitFor();
    await runJob(world, endpoint, { form_data: {}, human_in_the_loop: true }, ['waiting_for_input']);
    const badge = page.getByTestId('waiting-badge');
    await advanceUntil(
      page,
      async () => (await badge.count()) > 0 && (await badge.innerText()) === '3',
      'the badge at 3',
    );
    expect((await shown()).length).toBe(2);

    // On again, then another org: the question already waiting there is shown in the page, not announced; a new one is.
    await box.check();
    await page.getByTestId('notify-status').getByText('On in this browser').waitFor();
    await page.getByLabel('Organization').selectOption('elsewhere');
    const answerElsewhere = page.getByRole('link', { name: `Answer ${otherEndpoint}` });
    await advanceUntil(page, async () => (await answerElsewhere.count()) > 0, "the other org's waiting question");
    expect((await shown()).length).toBe(2);
    const fresh = await askElsewhere();
    await advanceUntil(page, async () => (await shown()).length > 2, 'the new question of the other org');
    expect(await shownTags()).toBe(
      [`portico-question-${first}`, `portico-question-${second}`, `portico-question-${fresh}`].join(' '),
    );
  }, 90_000);
});

// The test fixtures (vitest `test.extend`): ask for one by name in a test's argument and it is made
// for you, once, and released after. Nothing is started that a test does not ask for.
//
//   svc      a running Portico service on a fresh data folder (test/helpers/service.ts), one per file
//   browser  one headless Chromium per file (test/helpers/chromium.ts)
//   page     a page in a fresh browser context of `browser`, one per test, closed after it
//   server   a local page server (test/helpers/browserFixtures.ts), one per file, for the routes the
//            file gives `withServer(routes)`
//   forms    a form server (test/helpers/formServer.ts), one per file, serving test/fixtures/forms and
//            the handlers the file gives `withForms(handlers)`, recording every post
//
// File fixtures are made when the first test that asks for one runs (inside that test's timeout) and
// released when the file ends; test fixtures (`page`) are made per test and released after it.
//
//   import { test, expect } from '../helpers/fixtures.ts';
//   test('answers', async ({ svc, page }) => { ... });
//
// A file that needs its service started differently (other options, a data folder of its own) keeps
// calling startService itself, or overrides it: `test.override('svc', { scope: 'file' }, async ({}, { onCleanup }) => ...)`.
import type { Browser, Page } from 'playwright-core';
import { test as base } from 'vitest';

import { type LocalServer, type RouteHandler, startPageServer } from './browserFixtures.ts';
import { launchTestBrowser } from './chromium.ts';
import { type FormServer, type Handler as FormHandler, startFormServer } from './formServer.ts';
import { startService, type TestService } from './service.ts';

export { describe, expect } from 'vitest';

export const test = base
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture depends on from this pattern (nothing)
  .extend('svc', { scope: 'file' }, async ({}, { onCleanup }): Promise<TestService> => {
    const svc = await startService();
    onCleanup(() => svc.dispose());
    return svc;
  })
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture depends on from this pattern (nothing)
  .extend('browser', { scope: 'file' }, async ({}, { onCleanup }): Promise<Browser> => {
    const launched = await launchTestBrowser();
    onCleanup(() => launched.close());
    return launched.browser;
  })
  .extend('page', async ({ browser }, { onCleanup }): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    onCleanup(() => context.close());
    return context.newPage();
  });

/** `test` with a `server` fixture: one local page server per file, serving `routes`. */
export function withServer(routes: Record<string, RouteHandler>) {
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture depends on from this pattern (nothing)
  return test.extend('server', { scope: 'file' }, async ({}, { onCleanup }): Promise<LocalServer> => {
    const server = await startPageServer(routes);
    onCleanup(() => server.close());
    return server;
  });
}

/** `test` with a `forms` fixture: one form server per file, serving test/fixtures/forms and `handlers`, recording every post. */
export function withForms(handlers: Record<string, FormHandler> = {}) {
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads what a fixture depends on from this pattern (nothing)
  return test.extend('forms', { scope: 'file' }, async ({}, { onCleanup }): Promise<FormServer> => {
    const forms = await startFormServer(handlers);
    onCleanup(() => forms.close());
    return forms;
  });
}

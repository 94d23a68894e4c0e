import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { NotFoundError } from '../../src-main/base/errors.ts';
import { SingleActionRequest, type SingleActionResponse } from '../../src-main/contract/singleAction.ts';
import { ActionService, type ActionModel } from '../../src-main/engine/actions/actionService.ts';
import { DEFAULT_WORKSPACE_ID, seedFirstStart } from '../../src-main/engine/firstStart.ts';
import { openStore, type Store } from '../../src-main/store/store.ts';
import { corpusHandlers } from '../fixtures/design-systems/corpus.ts';
import { launchTestBrowser } from '../helpers/chromium.ts';
import { startFormServer, type FormServer, type Handler } from '../helpers/formServer.ts';

/** A handler answering one fixed HTML page. */
export const html =
  (body: string): Handler =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  };

export interface ActionHarness {
  server: FormServer;
  page: Page;
  store: Store;
  dbFile: string;
  service: ActionService;
  /** Runs an action in the test's session (`s1` of workspace `default`), the body parsed as the route parses it. */
  run(action: string, extra?: Partial<Record<keyof SingleActionRequest, unknown>>): Promise<SingleActionResponse>;
}

/**
 * One Chromium, one form server (the design-system corpus plus `pages`) and one real SQLite store per
 * file; a fresh page per test, served to the action service as session `s1` of workspace `default`.
 */
export function useActionHarness(
  pages: Record<string, Handler>,
  options: { model?: () => ActionModel | undefined } = {},
): ActionHarness {
  let browser: Awaited<ReturnType<typeof launchTestBrowser>> | undefined;
  let context: BrowserContext | undefined;
  let dataDir = '';
  const h = {} as ActionHarness;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'portico-actions-'));
    h.dbFile = join(dataDir, 'portico.db');
    h.store = openStore(h.dbFile);
    seedFirstStart(h.store);
    [browser, h.server] = await Promise.all([launchTestBrowser(), startFormServer({ ...corpusHandlers(), ...pages })]);
    const model = options.model?.();
    h.service = new ActionService({
      cache: h.store.actionCache,
      sessions: {
        pageFor: async (sessionId, workspaceId) => {
          if (sessionId !== 's1' || workspaceId !== DEFAULT_WORKSPACE_ID) throw new NotFoundError('Session not found');
          return h.page;
        },
      },
      ...(model && { model }),
    });
    h.run = (action, extra = {}) =>
      h.service.run(DEFAULT_WORKSPACE_ID, SingleActionRequest.parse({ action, session_id: 's1', ...extra }));
  });
  afterAll(async () => {
    await browser?.close();
    await h.server?.close();
    h.store?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    if (!browser) throw new Error('the test browser did not start');
    context = await browser.newContext();
    h.page = await context.newPage();
  });
  afterEach(async () => {
    await context?.close();
  });
  return h;
}

import type { Page } from 'playwright-core';
import type { AppOptions } from '../../src-main/app.ts';
import { launchTestBrowser } from '../helpers/chromium.ts';
import { startModelServer, type ModelServer } from '../helpers/modelServer.ts';
import { startService, type TestService } from '../helpers/service.ts';

/**
 * What the mask tests run on: a real service whose Anthropic provider is a scripted model server
 * (`PORTICO_ANTHROPIC_BASE_URL`), and a real Chromium that reads its screenshots back for `maskedShare`.
 */
export interface MaskRig {
  svc: TestService;
  model: ModelServer;
  /** A fresh page of the viewer browser, to decode screenshots in. */
  viewerPage(): Promise<Page>;
  /** Forgets the model server's URL and closes the viewer, the service (removing its data dir) and the model server. */
  dispose(): Promise<void>;
}

export async function startMaskRig(options: Partial<AppOptions>): Promise<MaskRig> {
  const model = await startModelServer();
  process.env.PORTICO_ANTHROPIC_BASE_URL = model.anthropicBaseUrl;
  let svc: TestService | undefined;
  let viewer: Awaited<ReturnType<typeof launchTestBrowser>> | undefined;
  const dispose = async (): Promise<void> => {
    delete process.env.PORTICO_ANTHROPIC_BASE_URL;
    await viewer?.close();
    await svc?.dispose();
    await model.close();
  };
  try {
    svc = await startService(undefined, options);
    viewer = await launchTestBrowser();
  } catch (error) {
    await dispose();
    throw error;
  }
  const browser = viewer;
  return { svc, model, viewerPage: async () => (await browser.newContext()).newPage(), dispose };
}

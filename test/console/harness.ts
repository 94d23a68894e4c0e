import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { chromium, type Browser, type Locator, type Page, type Request } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, PAGE_CHROMIUM_PATH } from '../helpers/chromium.ts';
import { afterAll, beforeAll } from 'vitest';
import yazl from 'yazl';
import { createApiClient, type ApiClient } from '../../src-main/contract/client.ts';
import { html, startPageServer, type LocalServer } from '../helpers/browserFixtures.ts';
import { startModelServer, type ModelServer } from '../helpers/modelServer.ts';
import { scriptedRegistry } from '../helpers/scriptedAgents.ts';
import type { AppOptions } from '../../src-main/app.ts';
import { startService, type TestService } from '../helpers/service.ts';
import { jobEndedOtherwise, until } from '../helpers/wait.ts';

export const SHOTS = join(import.meta.dirname, '../../test-results/console');
const SIZES = [
  { name: '1280x800', width: 1280, height: 800 },
  { name: '1024x700', width: 1024, height: 700 },
] as const;

/** One console test file's world: a real service (scripted agents), real Chromium, the pages jobs visit. */
export interface ConsoleWorld {
  svc: TestService;
  browser: Browser;
  pages: LocalServer;
  model: ModelServer;
  scratch: string;
  /** The API as the console operator (console token), typed by the contract. */
  api: ApiClient;
  /** A fresh browser context with the console open and signed in; closed after the test file. */
  openConsole(options?: { width?: number; height?: number; hash?: string; clock?: boolean }): Promise<Page>;
  /** A name no other test of the file uses (portals, profiles, orgs). */
  unique(prefix: string): string;
}

/**
 * Sets up a world for the test file (beforeAll/afterAll) and returns it; each test builds its own data
 * with `unique` names and opens its own page, so tests pass alone and in any order.
 */
export function useConsoleWorld(
  options: {
    modelServer?: boolean;
    realAgents?: boolean;
    samples?: boolean;
    service?: Partial<AppOptions>;
    /** The full Chromium instead of the headless shell: what the page needs only a whole browser has (notifications). */
    fullChromium?: boolean;
  } = {},
): ConsoleWorld {
  const previousHeadless = process.env.PORTICO_HEADLESS;
  const opened: Page[] = [];
  let counter = 0;
  const world = {
    scratch: mkdtempSync(join(tmpdir(), 'portico-console-')),
    unique: (prefix: string) => `${prefix}-${++counter}`,
    async openConsole(open: { width?: number; height?: number; hash?: string; clock?: boolean } = {}): Promise<Page> {
      const page = await world.browser.newPage({ viewport: { width: open.width ?? 1280, height: open.height ?? 800 } });
      opened.push(page);
      // The page's timers on Playwright's fake clock (it runs on until the test pauses it): page.clock.
      if (open.clock) await page.clock.install();
      await page.goto(`${world.svc.url}/#token=${world.svc.consoleToken}`);
      await page.getByRole('navigation', { name: 'Main' }).waitFor();
      if (open.hash !== undefined)
        await page.evaluate((hash) => {
          window.location.hash = hash;
        }, open.hash);
      return page;
    },
  } as ConsoleWorld;

  beforeAll(async () => {
    process.env.PORTICO_HEADLESS = '1';
    mkdirSync(SHOTS, { recursive: true });
    world.pages = await startPageServer({
      '/form': html('<title>Colour form</title><h1>Pick a colour</h1><label>Colour <input id="colour"></label>'),
      '/fetch': html('<title>Files</title><a id="dl" href="/report.txt" download>get the report</a>'),
      '/report.txt': (_req, res) => {
        res
          .writeHead(200, { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="report.txt"' })
          .end('downloaded content');
      },
      '/login': html(
        '<title>Sign in</title><h1>Sign in</h1><input id="user" aria-label="user"><a href="/account">My account</a>',
      ),
      '/account': html('<title>Account</title><h1>Your account</h1><a href="/login">Sign out</a>'),
    });
    if (options.modelServer) {
      world.model = await startModelServer();
      process.env.PORTICO_ANTHROPIC_BASE_URL = world.model.anthropicBaseUrl;
    }
    [world.svc, world.browser] = await Promise.all([
      // realAgents: jobs run with the real engines (built-in autofill), not the scripted test agents.
      startService(undefined, {
        ...(!options.realAgents && { agents: scriptedRegistry }),
        ...(options.samples && { samples: true }),
        ...options.service,
      }),
      chromium.launch({
        executablePath: options.fullChromium ? CHROMIUM_PATH : PAGE_CHROMIUM_PATH,
        args: CHROMIUM_ARGS,
      }),
    ]);
    world.api = createApiClient(async (request) => {
      const response = await fetch(`${world.svc.url}${request.path}`, {
        method: request.method,
        headers: {
          'x-console-token': world.svc.consoleToken,
          ...(request.body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
      });
      if (!response.ok)
        throw new Error(`${request.method} ${request.path}: ${response.status} ${await response.text()}`);
      return response.status === 204 ? undefined : response.json();
    });
  });

  afterAll(async () => {
    for (const page of opened)
      await page
        .context()
        .close()
        .catch(() => undefined);
    await world.browser?.close();
    await world.svc?.dispose();
    await world.pages?.close();
    if (world.model) {
      await world.model.close();
      delete process.env.PORTICO_ANTHROPIC_BASE_URL;
    }
    rmSync(world.scratch, { recursive: true, force: true });
    if (previousHeadless === undefined) delete process.env.PORTICO_HEADLESS;
    else process.env.PORTICO_HEADLESS = previousHeadless;
  });

  return world;
}

/** Creates a portal through the API (the console's own forms have their own tests). */
export async function makePortal(
  world: ConsoleWorld,
  endpoint: string,
  task: string,
  extra: { form_schema?: Record<string, unknown>; webhook_url?: string; start?: string } = {},
): Promise<void> {
  await world.api.call('createPortal', {
    params: { org_id: 'default' },
    body: {
      endpoint_name: endpoint,
      start_url: world.pages.url(extra.start ?? '/form'),
      task,
      form_schema: extra.form_schema ?? {},
      ...(extra.webhook_url !== undefined && { webhook_url: extra.webhook_url }),
    },
  });
}

/** Starts a job through the API and waits for one of `statuses`; returns its id. */
export async function runJob(
  world: ConsoleWorld,
  endpoint: string,
  body: { form_data: Record<string, unknown>; human_in_the_loop?: boolean },
  statuses: string[],
): Promise<string> {
  const { job_id } = await world.api.call('startJob', { params: { org_id: 'default', endpoint_name: endpoint }, body });
  const read = () =>
    world.api.call('getJobStatus', { params: { org_id: 'default', endpoint_name: endpoint }, query: { job_id } });
  // A job that ended otherwise fails the wait at once, saying how it ended.
  await until(async () => statuses.includes((await read()).status), `job ${job_id} to be ${statuses.join('|')}`, {
    timeoutMs: 30_000,
    fail: jobEndedOtherwise(read, statuses),
  });
  return job_id;
}

/** Writes a real zip (yazl, as a person's zip tool would) holding a skill folder; returns its path. */
export async function skillZip(dir: string, fileName: string, description: string): Promise<string> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(
    Buffer.from(
      `---\nname: Date pickers\ndescription: ${description}\n---\n# Date pickers\nOpen the calendar, then click the day.\n<img src=x onerror="document.title='pwned'"> <b>not bold</b>\n`,
    ),
    'SKILL.md',
  );
  zip.addBuffer(Buffer.from('export const pick = 1;\n'), 'scripts/pick.js');
  zip.end();
  const path = join(dir, fileName);
  await finished(zip.outputStream.pipe(createWriteStream(path)));
  return path;
}

/** WCAG contrast ratio of an element's text against the first opaque background behind it. */
export function contrastOf(locator: Locator): Promise<number> {
  return locator.evaluate((el) => {
    const rgb = (css: string) => (css.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
      const f = (c: number) => {
        const v = c / 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    let node: Element | null = el;
    let background = 'rgb(255, 255, 255)';
    while (node) {
      const bg = getComputedStyle(node).backgroundColor;
      const parts = rgb(bg);
      if (parts.length === 3 || (parts.length === 4 && parts[3] === 1)) {
        background = bg;
        break;
      }
      node = node.parentElement;
    }
    const [a, b] = [luminance(rgb(getComputedStyle(el).color)), luminance(rgb(background))].sort((x, y) => y - x) as [
      number,
      number,
    ];
    return (a + 0.05) / (b + 0.05);
  });
}

/** Saves the page at both window sizes the console must work at, for a person to look at. */
export async function snap(page: Page, name: string): Promise<void> {
  const before = page.viewportSize();
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.screenshot({ path: join(SHOTS, `${name}-${size.name}.png`) });
  }
  if (before) await page.setViewportSize(before);
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** Runs axe-core (WCAG 2 A/AA rules) in the page; returns the serious and critical violations. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated over CDP rather than added as a <script>: the console's Content-Security-Policy forbids inline scripts.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const found = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: Document,
            options: object,
          ): Promise<{
            violations: {
              id: string;
              impact: string | null;
              help: string;
              nodes: { target: unknown[]; failureSummary?: string }[];
            }[];
          }>;
        };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => `${JSON.stringify(n.target)} ${n.failureSummary ?? ''}`),
    }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * Moves the paused clock of a page opened with `{ clock: true }` on, 250 ms at a time, until `probe`
 * holds: the console's polls come when the test moves time, not after waiting them out. Fails after
 * `maxMs` of page time.
 */
export async function advanceUntil(
  page: Page,
  probe: () => boolean | Promise<boolean>,
  what: string,
  maxMs = 15_000,
): Promise<void> {
  for (let ms = 0; ; ms += 250) {
    if (await probe()) return;
    if (ms >= maxMs) throw new Error(`${what}: not within ${maxMs / 1000} s of the page's time`);
    await page.clock.runFor(250);
  }
}

/**
 * Watches a page's requests from now on. `settled()` resolves once nothing is loading: no
 * "Loading …" placeholder in the page and, for `quietMs`, no request in flight — the event streams
 * aside (a waiting job's log stream stays open as long as the job waits, so Playwright's
 * 'networkidle' is never reached there and would wait out its whole timeout). Fails after
 * `timeoutMs`, naming what was still in flight.
 */
export function watchNetwork(page: Page, quietMs = 250): { settled(timeoutMs?: number): Promise<void> } {
  const inFlight = new Set<Request>();
  let lastChange = Date.now();
  const isStream = (request: Request) => request.headers().accept === 'text/event-stream';
  page.on('request', (request) => {
    if (isStream(request)) return;
    inFlight.add(request);
    lastChange = Date.now();
  });
  const done = (request: Request) => {
    if (inFlight.delete(request)) lastChange = Date.now();
  };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  return {
    async settled(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const loading = await page.locator('.loading').count();
        if (inFlight.size === 0 && loading === 0 && Date.now() - lastChange >= quietMs) return;
        if (Date.now() > deadline)
          throw new Error(
            `the page at ${page.url()} did not settle in ${timeoutMs / 1000} s: ${loading} "Loading" placeholders, in flight: ${[...inFlight].map((r) => `${r.method()} ${r.url()}`).join(', ') || 'nothing'}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

import { createRequire } from 'node:module';
import type { BrowserType } from 'playwright-core';

type Playwright = typeof import('playwright-core');

let loaded: Playwright | undefined;

/**
 * playwright-core, loaded at the first call that needs it (~70 MB and most of a second at start
 * otherwise; docs/performance.md). Required, not imported: an `import()` of this CommonJS package has
 * Node scan its 3.6 MB bundle for export names first (cjs-module-lexer), as long again as loading it.
 */
function playwright(): Playwright {
  loaded ??= createRequire(import.meta.url)('playwright-core') as Playwright;
  return loaded;
}

/** Whether playwright-core has been loaded (by a first launch or connect): what is warmed ahead may then use it for free. */
export function playwrightLoaded(): boolean {
  return loaded !== undefined;
}

/**
 * Playwright's `chromium`, loaded on first use: every method that returns a promise (launch,
 * launchPersistentContext, connect, connectOverCDP, launchServer) loads playwright-core then calls
 * the real one with the same arguments; `name()` and `executablePath()` answer synchronously.
 * Importing this module loads nothing.
 */
export const chromium: BrowserType = new Proxy(Object.create(null) as BrowserType, {
  get(_target, property) {
    if (property === 'name') return () => 'chromium';
    if (property === 'executablePath') return () => playwright().chromium.executablePath();
    // Not a thenable: `await chromium` must not call a forwarded `then`.
    if (typeof property !== 'string' || property === 'then') return undefined;
    return async (...args: unknown[]): Promise<unknown> => {
      const real = playwright().chromium;
      const method: unknown = Reflect.get(real, property);
      if (typeof method !== 'function') throw new TypeError(`playwright-core's chromium has no method ${property}`);
      return Reflect.apply(method, real, args);
    };
  },
});

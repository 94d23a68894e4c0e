import { z } from 'zod';

/**
 * Remote browser hosts (issue 22, docs/scale.md): engines on other machines Portico drives over the
 * protocols they already serve. A host's token is never part of these shapes: it lives in the
 * keychain/vault (`browser-host/<name>`) and is put into the connection only when connecting.
 */

/** The implicit host of the local Chromium (`local_max_browsers` in settings.json). */
export const LOCAL_HOST = 'local';

/** `playwright`: Playwright's browser server (`npx playwright-core run-server`); `cdp`: any Chrome DevTools endpoint. */
export const BROWSER_HOST_KINDS = ['playwright', 'cdp'] as const;
export const BrowserHostKind = z.enum(BROWSER_HOST_KINDS);
export type BrowserHostKind = z.infer<typeof BrowserHostKind>;

export const BrowserHostName = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9_-]{0,62}$/,
    'must be 1-63 lowercase letters, digits, "-" or "_", starting with a letter or digit',
  )
  .refine(
    (name) => name !== LOCAL_HOST,
    `'${LOCAL_HOST}' is the local Chromium's name (set local_max_browsers for it)`,
  );

export const BrowserHostLabel = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9_.-]{0,62}$/,
    'must be 1-63 lowercase letters, digits, ".", "-" or "_", starting with a letter or digit',
  );

/** The labels a portal or a job asks its browser's host to carry (every one of them); `local` names the local Chromium. */
export const BrowserHostLabels = z.array(BrowserHostLabel).min(1).max(20);

/** Why a host URL may not be stored, or undefined when it may. */
export function browserHostUrlProblem(kind: BrowserHostKind, value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  const allowed = kind === 'playwright' ? ['ws:', 'wss:'] : ['ws:', 'wss:', 'http:', 'https:'];
  if (!allowed.includes(url.protocol)) {
    return kind === 'playwright'
      ? 'must be a ws:// or wss:// URL (the address `npx playwright-core run-server` prints)'
      : 'must be a ws(s):// DevTools URL or an http(s):// debugging address (http://host:9222)';
  }
  // A secret written into settings.json would be readable by anyone who can read the file.
  if (url.username !== '' || url.password !== '')
    return 'must not carry credentials; store the token with `portico host add --token-stdin` (or the console)';
  for (const key of url.searchParams.keys()) {
    if (/token|key|secret|password|auth/i.test(key))
      return `must not carry a secret in the query ('${key}'); store the token with \`portico host add --token-stdin\` (or the console)`;
  }
  return undefined;
}

/** One entry of `browser_hosts` in settings.json. */
export const BrowserHostSetting = z
  .strictObject({
    name: BrowserHostName,
    kind: BrowserHostKind,
    url: z.string().min(1).max(2048),
    max_browsers: z.int().min(1).max(256),
    labels: z.array(BrowserHostLabel).max(20).optional(),
  })
  .superRefine((host, ctx) => {
    const problem = browserHostUrlProblem(host.kind, host.url);
    if (problem) ctx.addIssue({ code: 'custom', path: ['url'], message: problem });
  });
export type BrowserHostSetting = z.infer<typeof BrowserHostSetting>;

export const BrowserHostSettings = z
  .array(BrowserHostSetting)
  .max(64)
  .superRefine((hosts, ctx) => {
    const seen = new Set<string>();
    hosts.forEach((host, index) => {
      if (seen.has(host.name))
        ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `'${host.name}' is named twice` });
      seen.add(host.name);
    });
  });

/** `local_max_browsers`: browsers on the local Chromium at once; 0 runs every job and session on the hosts. */
export const LocalMaxBrowsers = z.int().min(0).max(256);
export const DEFAULT_LOCAL_MAX_BROWSERS = 8;

/** One host as `GET /admin/hosts` shows it: never its token. */
export const BrowserHostStatus = z.object({
  name: z.string(),
  kind: z.enum(['local', ...BROWSER_HOST_KINDS]),
  /** The address Portico connects to (without the token); null for `local`. */
  url: z.string().nullable(),
  labels: z.array(z.string()),
  /** Whether the last probe (or connect) reached it; a host that does not answer takes no new browsers. */
  reachable: z.boolean(),
  /** The browser's version as the host last reported it (e.g. `Chrome/156.0.8078.108`); null until known. */
  version: z.string().nullable(),
  browsers_in_use: z.int(),
  max_browsers: z.int(),
  /** Whether a token is stored for it in the keychain/vault (the token itself is never shown). */
  token_stored: z.boolean(),
  /** The last failure to reach or use it; null when none since it last answered. */
  last_error: z.string().nullable(),
  last_checked_at: z.string().nullable(),
  /**
   * A change made since the service started (console or `portico host add/remove`), which takes effect at
   * its next start: `added` (in settings.json, not used yet), `removed` (still used until then); null otherwise.
   */
  pending: z.enum(['added', 'removed']).nullable(),
});
export type BrowserHostStatus = z.infer<typeof BrowserHostStatus>;

export const BrowserHostList = z.object({ hosts: z.array(BrowserHostStatus) });
export type BrowserHostList = z.infer<typeof BrowserHostList>;

/** POST /admin/hosts: a host for settings.json, and its token for the keychain/vault (never written to the file). */
export const BrowserHostAddRequest = z
  .strictObject({
    name: BrowserHostName,
    kind: BrowserHostKind,
    url: z.string().min(1).max(2048),
    max_browsers: z.int().min(1).max(256),
    labels: z.array(BrowserHostLabel).max(20).optional(),
    /** A CDP provider's token (or a reverse proxy's, for a `playwright` host): kept in the keychain/vault as `browser-host/<name>`. */
    token: z.string().min(1).max(4096).optional(),
  })
  .superRefine((host, ctx) => {
    const problem = browserHostUrlProblem(host.kind, host.url);
    if (problem) ctx.addIssue({ code: 'custom', path: ['url'], message: problem });
  });
export type BrowserHostAddRequest = z.infer<typeof BrowserHostAddRequest>;

/** What `host add` learned by connecting once (a Playwright server of another version is refused instead). */
export const BrowserHostCheck = z.object({
  reachable: z.boolean(),
  browser_version: z.string().nullable(),
  playwright_version: z.string(),
  detail: z.string(),
});

export const BrowserHostAdded = z.object({
  host: BrowserHostSetting,
  token_stored: z.boolean(),
  check: BrowserHostCheck,
  /** When the service starts using it (settings.json is read at start). */
  applies: z.string(),
});
export type BrowserHostAdded = z.infer<typeof BrowserHostAdded>;

export const BrowserHostParams = z.object({ host_name: z.string().min(1).max(64) });

export const BrowserHostRemoved = z.object({ removed: z.string(), applies: z.string() });
export type BrowserHostRemoved = z.infer<typeof BrowserHostRemoved>;

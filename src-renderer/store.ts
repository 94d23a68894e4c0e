import { create } from 'zustand';
import type { Org } from '../src-main/contract/console.ts';
import { call, errorDetail, setConsoleToken, setUnauthorizedHandler, ApiError } from './api.ts';
import { parseRoute, routeHash, type Route } from './routes.ts';

const storageKey = { token: 'portico.consoleToken', org: 'portico.org' } as const;

/** Where a token came from: the desktop app, a `#token=` in the address, the paste field, or localStorage. */
export type TokenSource = 'bridge' | 'address' | 'pasted' | 'saved';

/**
 * `checking` at start; `unauthorized` when the token is missing (`none`), was kept from an earlier run of
 * the service (`stale`), or was just given and refused (`rejected`).
 */
export type Connection =
  | { state: 'checking' }
  | { state: 'ok' }
  | { state: 'unauthorized'; why: 'none' | 'stale' | 'rejected' }
  | { state: 'down'; detail: string };

interface ConsoleState {
  route: Route;
  org: string;
  orgs: Org[];
  connection: Connection;
  /** A short confirmation shown at the bottom ("Portal saved"). */
  toast: string | undefined;
  navigate(route: Route): void;
  setOrg(org: string): void;
  connect(token: string, source: TokenSource): Promise<void>;
  /** Reloads the organization list (after one is created). */
  refreshOrgs(): Promise<void>;
  showToast(text: string): void;
  /** Bumped when the console answers a question, so the pending-question notices refresh at once. */
  answersSent: number;
  noteAnswerSent(): void;
  /** False while the service does not answer at all (stopped, restarting): the console shows a banner. */
  reachable: boolean;
  setReachable(reachable: boolean): void;
}

/** Takes `#token=…` out of the address (so it stays out of history and screenshots) and returns it. */
function takeTokenFromAddress(): string | undefined {
  const fromUrl = new URLSearchParams(window.location.hash.replace(/^#/, '')).get('token');
  if (!fromUrl) return undefined;
  history.replaceState(null, '', `${window.location.pathname}${window.location.search}#/jobs`);
  return fromUrl;
}

/**
 * The token comes from the desktop app's preload, else from `#token=…` in the URL that
 * `npm run serve` printed (kept in localStorage once the service accepts it), else from localStorage.
 */
function initialToken(): { token: string; source: TokenSource } {
  const fromBridge = window.portico?.consoleToken;
  if (fromBridge) return { token: fromBridge, source: 'bridge' };
  const fromUrl = takeTokenFromAddress();
  if (fromUrl) return { token: fromUrl, source: 'address' };
  return { token: localStorage.getItem(storageKey.token) ?? '', source: 'saved' };
}

let toastTimer: ReturnType<typeof setTimeout> | undefined;

export const useConsole = create<ConsoleState>((set, get) => ({
  route: parseRoute(window.location.hash),
  org: localStorage.getItem(storageKey.org) ?? 'default',
  orgs: [],
  connection: { state: 'checking' },
  toast: undefined,
  answersSent: 0,
  reachable: true,
  setReachable(reachable) {
    if (get().reachable !== reachable) set({ reachable });
  },
  noteAnswerSent() {
    set({ answersSent: get().answersSent + 1 });
  },
  navigate(route) {
    const hash = routeHash(route);
    if (window.location.hash !== hash) window.location.hash = hash;
    set({ route });
  },
  setOrg(org) {
    localStorage.setItem(storageKey.org, org);
    set({ org });
  },
  async connect(token, source) {
    setConsoleToken(token);
    if (token === '') {
      set({ connection: { state: 'unauthorized', why: 'none' } });
      return;
    }
    set({ connection: { state: 'checking' } });
    try {
      const { orgs } = await call('listOrgs');
      if (!window.portico?.consoleToken) localStorage.setItem(storageKey.token, token);
      const org = orgs.some((o) => o.id === get().org) ? get().org : (orgs[0]?.id ?? 'default');
      set({ orgs, org, connection: { state: 'ok' } });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401)
        set({ connection: { state: 'unauthorized', why: source === 'saved' ? 'stale' : 'rejected' } });
      else set({ connection: { state: 'down', detail: errorDetail(error) } });
    }
  },
  async refreshOrgs() {
    const { orgs } = await call('listOrgs');
    set({ orgs });
  },
  showToast(text) {
    clearTimeout(toastTimer);
    set({ toast: text });
    toastTimer = setTimeout(() => set({ toast: undefined }), 3500);
  },
}));

// A console URL pasted into the open tab (after a restart) brings its new token: use it at once.
window.addEventListener('hashchange', () => {
  const fromUrl = takeTokenFromAddress();
  useConsole.setState({ route: parseRoute(window.location.hash) });
  if (fromUrl) void useConsole.getState().connect(fromUrl, 'address');
});

// Mid-session, a refused token means the service restarted with a new one.
setUnauthorizedHandler(() => {
  if (useConsole.getState().connection.state === 'ok')
    useConsole.setState({ connection: { state: 'unauthorized', why: 'stale' } });
});

/** Starts the console: the first connection attempt with whatever token is at hand. */
export function boot(): void {
  const { token, source } = initialToken();
  void useConsole.getState().connect(token, source);
}

import { create } from 'zustand';
import type { Org } from '../src-main/contract/console.ts';
import { api, errorDetail, setConsoleToken, ApiError } from './api.ts';
import { parseRoute, routeHash, type Route } from './routes.ts';

const storageKey = { token: 'portico.consoleToken', org: 'portico.org' } as const;

/** `checking` at start; `unauthorized` when the token is missing or from an earlier run. */
export type Connection = { state: 'checking' } | { state: 'ok' } | { state: 'unauthorized' } | { state: 'down'; detail: string };

interface ConsoleState {
  route: Route;
  org: string;
  orgs: Org[];
  connection: Connection;
  /** A short confirmation shown at the bottom ("Portal saved"). */
  toast: string | undefined;
  navigate(route: Route): void;
  setOrg(org: string): void;
  connect(token: string): Promise<void>;
  /** Reloads the organization list (after one is created). */
  refreshOrgs(): Promise<void>;
  showToast(text: string): void;
}

/**
 * The token comes from the desktop app's preload, else from `#token=…` in the URL that
 * `npm run serve` printed (then kept in localStorage and removed from the address bar).
 */
function initialToken(): string {
  const fromBridge = window.portico?.consoleToken;
  if (fromBridge) return fromBridge;
  const hash = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  const fromUrl = hash.get('token');
  if (fromUrl) {
    localStorage.setItem(storageKey.token, fromUrl);
    history.replaceState(null, '', `${window.location.pathname}${window.location.search}#/jobs`);
    return fromUrl;
  }
  return localStorage.getItem(storageKey.token) ?? '';
}

let toastTimer: ReturnType<typeof setTimeout> | undefined;

export const useConsole = create<ConsoleState>((set, get) => ({
  route: parseRoute(window.location.hash),
  org: localStorage.getItem(storageKey.org) ?? 'default',
  orgs: [],
  connection: { state: 'checking' },
  toast: undefined,
  navigate(route) {
    const hash = routeHash(route);
    if (window.location.hash !== hash) window.location.hash = hash;
    set({ route });
  },
  setOrg(org) {
    localStorage.setItem(storageKey.org, org);
    set({ org });
  },
  async connect(token) {
    setConsoleToken(token);
    set({ connection: { state: 'checking' } });
    try {
      const { orgs } = await api.get<{ orgs: Org[] }>('/admin/orgs');
      if (!window.portico?.consoleToken) localStorage.setItem(storageKey.token, token);
      const org = orgs.some((o) => o.id === get().org) ? get().org : (orgs[0]?.id ?? 'default');
      set({ orgs, org, connection: { state: 'ok' } });
    } catch (error) {
      set({ connection: error instanceof ApiError && error.status === 401 ? { state: 'unauthorized' } : { state: 'down', detail: errorDetail(error) } });
    }
  },
  async refreshOrgs() {
    const { orgs } = await api.get<{ orgs: Org[] }>('/admin/orgs');
    set({ orgs });
  },
  showToast(text) {
    clearTimeout(toastTimer);
    set({ toast: text });
    toastTimer = setTimeout(() => set({ toast: undefined }), 3500);
  },
}));

window.addEventListener('hashchange', () => useConsole.setState({ route: parseRoute(window.location.hash) }));

/** Starts the console: the first connection attempt with whatever token is at hand. */
export function boot(): void {
  void useConsole.getState().connect(initialToken());
}

/** Path prefix helpers for the current org. */
export const orgPath = (org: string): string => encodeURIComponent(org);

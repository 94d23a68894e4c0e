import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, errorDetail } from './api.ts';
import { useConsole } from './store.ts';

export interface Resource<T> {
  data: T | undefined;
  /** The server's detail of the last failed load, cleared by the next success. */
  error: string | undefined;
  loading: boolean;
  reload(): void;
}

/** The slowest retry while the service does not answer. */
const MAX_RETRY_MS = 30_000;

/**
 * Loads `load()` when `key` changes, and again every `pollMs` while mounted (auto-refreshing lists);
 * `pollMs` undefined loads once (a page whose updates are pushed), and changing it loads again.
 * Polling stops once `keepPolling(data)` is false (a finished job) or on a 404 (it is gone), slows down
 * (doubling, up to 30 s) while the service does not answer, and pauses while the tab is hidden.
 */
export function useResource<T>(
  load: () => Promise<T>,
  key: string,
  pollMs?: number,
  keepPolling?: (data: T) => boolean,
  options: { whileHidden?: boolean } = {},
): Resource<T> {
  const whileHidden = options.whileHidden ?? false;
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const loadRef = useRef(load);
  loadRef.current = load;
  const keepRef = useRef(keepPolling);
  keepRef.current = keepPolling;
  const generation = useRef(0);
  const setReachable = useConsole((s) => s.setReachable);

  /** One load; resolves whether polling should go on, and after how long. */
  const loadOnce = useCallback(async (): Promise<{ again: boolean; failedToConnect: boolean }> => {
    const mine = ++generation.current;
    try {
      const value = await loadRef.current();
      setReachable(true);
      if (mine === generation.current) {
        setData(value);
        setError(undefined);
        setLoading(false);
      }
      return { again: keepRef.current?.(value) ?? true, failedToConnect: false };
    } catch (failure: unknown) {
      const failedToConnect = failure instanceof TypeError;
      if (failedToConnect) setReachable(false);
      if (mine === generation.current) {
        setError(errorDetail(failure));
        setLoading(false);
      }
      return { again: !(failure instanceof ApiError && failure.status === 404), failedToConnect };
    }
  }, [setReachable]);

  const reload = useCallback(() => void loadOnce(), [loadOnce]);

  // A new key starts over; a new poll interval (polling paused while updates are pushed) keeps what is shown.
  const shownKey = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (shownKey.current !== key) {
      shownKey.current = key;
      setData(undefined);
      setLoading(true);
    }
    let disposed = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let pausedWhileHidden = false;
    let delay = pollMs ?? 0;
    const tick = async (): Promise<void> => {
      const { again, failedToConnect } = await loadOnce();
      if (disposed || pollMs === undefined || !again) return;
      delay = failedToConnect ? Math.min(Math.max(delay, pollMs) * 2, MAX_RETRY_MS) : pollMs;
      timer = setTimeout(() => {
        if (document.visibilityState === 'hidden' && !whileHidden) pausedWhileHidden = true;
        else void tick();
      }, delay);
    };
    const onVisibility = () => {
      if (document.visibilityState !== 'visible' || !pausedWhileHidden || disposed) return;
      pausedWhileHidden = false;
      void tick();
    };
    document.addEventListener('visibilitychange', onVisibility);
    void tick();
    return () => {
      disposed = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [key, pollMs, loadOnce, whileHidden]);

  return { data, error, loading, reload };
}

/** Runs an action, keeping its pending state and its failure's detail for the button that started it. */
export function useAction(): {
  busy: boolean;
  error: string | undefined;
  run(action: () => Promise<void>): Promise<void>;
  clear(): void;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const run = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (failure) {
      setError(errorDetail(failure));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError(undefined) };
}

/** Re-renders every `ms` (elapsed-time counters). */
export function useNow(ms: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

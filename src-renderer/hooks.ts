import { useCallback, useEffect, useRef, useState } from 'react';
import { errorDetail } from './api.ts';

export interface Resource<T> {
  data: T | undefined;
  /** The server's detail of the last failed load, cleared by the next success. */
  error: string | undefined;
  loading: boolean;
  reload(): void;
}

/** Loads `load()` when `key` changes, and again every `pollMs` while mounted (auto-refreshing lists). */
export function useResource<T>(load: () => Promise<T>, key: string, pollMs?: number): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const loadRef = useRef(load);
  loadRef.current = load;
  const generation = useRef(0);

  const reload = useCallback(() => {
    const mine = ++generation.current;
    loadRef.current().then(
      (value) => {
        if (mine !== generation.current) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (failure: unknown) => {
        if (mine !== generation.current) return;
        setError(errorDetail(failure));
        setLoading(false);
      },
    );
  }, []);

  useEffect(() => {
    setData(undefined);
    setLoading(true);
    reload();
    if (pollMs === undefined) return undefined;
    const timer = setInterval(reload, pollMs);
    return () => clearInterval(timer);
  }, [key, pollMs, reload]);

  return { data, error, loading, reload };
}

/** Runs an action, keeping its pending state and its failure's detail for the button that started it. */
export function useAction(): { busy: boolean; error: string | undefined; run(action: () => Promise<void>): Promise<void>; clear(): void } {
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

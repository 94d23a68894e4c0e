import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ReceivedWebhook {
  path: string;
  n: number;
  /** Seconds since the epoch when the request arrived. */
  at: number;
  raw_ok: boolean;
  reserialized_ok: boolean;
  same_bytes: boolean;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  answered: number;
}

export interface PythonReceiver {
  url(path: string): string;
  received: ReceivedWebhook[];
  /** Resolves once `count` requests (optionally on one path) have arrived. */
  waitFor(count: number, path?: string, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): void;
}

const SCRIPT = fileURLToPath(new URL('./webhook_receiver.py', import.meta.url));

/** Starts the Python receiver (real HTTP on loopback) that verifies signatures the two ways §4 promises. */
export async function startPythonReceiver(secret: string): Promise<PythonReceiver> {
  const child: ChildProcess = spawn('python3', ['-u', SCRIPT, secret], { stdio: ['ignore', 'pipe', 'inherit'] });
  const received: ReceivedWebhook[] = [];
  let buffer = '';
  let port = 0;
  const waiters = new Set<() => void>();
  const ready = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (port === 0) {
          port = Number(line);
          resolve();
        } else {
          received.push(JSON.parse(line) as ReceivedWebhook);
          for (const wake of waiters) wake();
        }
        newline = buffer.indexOf('\n');
      }
    });
  });
  await ready;
  const matching = (path?: string) => received.filter((r) => path === undefined || r.path === path);
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    waitFor: (count, path, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (matching(path).length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(matching(path));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `expected ${count} webhook(s)${path ? ` on ${path}` : ''} within ${timeoutMs} ms, got ${matching(path).length}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () => {
      child.kill('SIGKILL');
    },
  };
}

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Process ids of the processes whose command line contains `marker` (a data folder: the browsers running on it). */
export function pidsUnder(marker: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes(marker) && !line.includes('ps -eo'))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** The TCP ports this process listens on (Linux: its socket fds matched against /proc/net/tcp{,6}), sorted. */
export function listeningPorts(): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (match?.[1]) inodes.add(match[1]);
    } catch {
      // Closed while we looked.
    }
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      // Column 3 is the state (0A: LISTEN), column 9 the socket's inode.
      if (columns[3] === '0A' && columns[9] !== undefined && inodes.has(columns[9]))
        ports.push(Number.parseInt(columns[1]?.split(':')[1] ?? '0', 16));
    }
  }
  return ports.sort((a, b) => a - b);
}

/**
 * Waits until no process's command line contains `marker`, failing with those left (pid and command)
 * after `timeoutMs`. A closed Chromium's own process is gone when close() resolves, but its helper
 * processes (zygote, renderers) exit a moment later, which on a loaded machine an immediate look catches.
 */
export async function expectNoProcessesUnder(marker: string, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = pidsUnder(marker);
    if (left.length === 0) return;
    if (Date.now() > deadline) {
      const lines = execFileSync('ps', ['-o', 'pid=,args=', '-p', left.join(',')], { encoding: 'utf8' }).trim();
      throw new Error(`${what}: still running ${timeoutMs / 1000} s later:\n${lines || left.join(', ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

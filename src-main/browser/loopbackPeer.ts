import { existsSync } from 'node:fs';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { endianness } from 'node:os';
import type { Socket } from 'node:net';

/**
 * Who is at the other end of a loopback TCP connection, on Linux: the kernel lists both ends of every
 * local connection in /proc/net/tcp (with the socket's inode), and /proc/<pid>/fd shows which process
 * holds that inode. Used by the session proxy forwarder (proxyForwarder.ts) to serve only its own
 * Chromium: Chromium's `--proxy-server` cannot carry a secret, but its process group can be checked.
 */

/** Whether this machine can tell (Linux /proc); elsewhere `isFromProcessGroup` cannot decide. */
export const canIdentifyLoopbackPeers = process.platform === 'linux' && existsSync('/proc/net/tcp');

/** `0100007F:1F90` (host byte order IPv4, hex port) → `127.0.0.1:8080`. */
function decodeV4(hex: string): string {
  const [ip = '', port = ''] = hex.split(':');
  const bytes = (ip.match(/../g) ?? []).map((byte) => Number.parseInt(byte, 16));
  if (endianness() === 'LE') bytes.reverse();
  return `${bytes.join('.')}:${Number.parseInt(port, 16)}`;
}

/** The inode of the client's end of `socket` (an accepted 127.0.0.1 connection), if the kernel lists it. */
async function clientInode(socket: Socket): Promise<string | undefined> {
  const client = `${socket.remoteAddress}:${socket.remotePort}`;
  const server = `${socket.localAddress}:${socket.localPort}`;
  const table = await readFile('/proc/net/tcp', 'utf8');
  for (const line of table.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10) continue;
    if (decodeV4(fields[1] ?? '') === client && decodeV4(fields[2] ?? '') === server) return fields[9];
  }
  return undefined;
}

/** Pids whose process group is `groupId` (field 5 of /proc/<pid>/stat, after the parenthesised name). */
async function groupOf(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const group = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  return stat && Number.isInteger(group) ? group : undefined;
}

async function groupMembers(groupId: number): Promise<number[]> {
  const members: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (/^\d+$/.test(entry) && (await groupOf(Number(entry))) === groupId) members.push(Number(entry));
  }
  return members;
}

async function holdsSocket(pid: number, inode: string): Promise<boolean> {
  const target = `socket:[${inode}]`;
  for (const fd of await readdir(`/proc/${pid}/fd`).catch(() => [] as string[])) {
    if ((await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')) === target) return true;
  }
  return false;
}

/**
 * Tells whether the client of an accepted loopback connection is a process of one process group (a
 * Chromium Portico launched detached: its group id is its pid). Remembers the last process found (the
 * browser's network service makes every proxy connection), so later connections are checked first there.
 */
export class ProcessGroupPeers {
  readonly #groupId: number;
  #lastPeer: number | undefined;

  constructor(groupId: number) {
    this.#groupId = groupId;
  }

  /** True only when the kernel shows a process of the group holding the client's end; false when it cannot tell. */
  async admits(socket: Socket): Promise<boolean> {
    if (!canIdentifyLoopbackPeers) return false;
    const inode = await clientInode(socket);
    if (!inode || inode === '0') return false;
    const last = this.#lastPeer;
    if (last !== undefined && (await groupOf(last)) === this.#groupId && (await holdsSocket(last, inode))) return true;
    for (const pid of await groupMembers(this.#groupId)) {
      if (pid !== last && (await holdsSocket(pid, inode))) {
        this.#lastPeer = pid;
        return true;
      }
    }
    return false;
  }
}

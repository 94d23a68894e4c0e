import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Finding and killing the Chromium a Playwright launch started. Playwright does not hand out the
 * browser's pid, so each launch carries a switch of its own, `--portico-browser=<id>`, which Chromium
 * ignores; the process whose command line names it is found with `ps`, and its whole process group
 * (Playwright launches Chromium detached: the group is the browser and everything it started —
 * zygotes, renderers, GPU and network processes) gets SIGKILL. Used when a browser does not close
 * within its bound (a stopped or wedged Chromium), so a lease still gives back its lock and slot.
 */

const MARKER = '--portico-browser=';

/** A fresh marker for one launch: its id and the switch to add to Chromium's arguments. */
export function newLaunchMarker(): { id: string; arg: string } {
  const id = randomBytes(9).toString('base64url');
  return { id, arg: `${MARKER}${id}` };
}

/** Process-group ids of the processes whose command line carries the marker (POSIX `ps`). */
export async function launchGroups(id: string): Promise<number[]> {
  if (process.platform === 'win32') return [];
  const { stdout } = await run('ps', ['-ww', '-eo', 'pid=,pgid=,args='], { maxBuffer: 16 * 1024 * 1024 });
  const rows = stdout.split('\n').flatMap((line) => {
    const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    return match ? [{ pid: Number(match[1]), group: Number(match[2]), args: match[3] ?? '' }] : [];
  });
  // Never our own group: a browser not launched detached would share it.
  const own = rows.find((row) => row.pid === process.pid)?.group;
  const marked = rows.filter(
    (row) => row.args.split(/\s+/).includes(`${MARKER}${id}`) && row.group > 1 && row.group !== own,
  );
  return [...new Set(marked.map((row) => row.group))];
}

/** SIGKILLs every process group the launch marked `id` runs in; returns the groups killed (none: already gone, or Windows). */
export async function killLaunch(id: string): Promise<number[]> {
  const groups = await launchGroups(id);
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // Gone between the listing and the kill.
    }
  }
  return groups;
}

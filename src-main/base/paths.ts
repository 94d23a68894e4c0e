import { chmodSync, type Dirent, mkdirSync } from 'node:fs';
import { chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Where each kind of data lives inside the data dir. */
export interface DataPaths {
  root: string;
  database: string;
  skills: string;
  profiles: string;
  artifacts: string;
  tmp: string;
}

export function dataPaths(root: string): DataPaths {
  return {
    root,
    database: join(root, 'portico.db'),
    skills: join(root, 'skills'),
    profiles: join(root, 'profiles'),
    artifacts: join(root, 'artifacts'),
    tmp: join(root, 'tmp'),
  };
}

/** `--data-dir`, else PORTICO_DATA_DIR, else the platform's app-data folder (both from base/config.ts). */
export function resolveDataDir(
  explicit: string | undefined,
  config: { dataDir: string | undefined; defaultDataDir: string },
): string {
  return explicit || config.dataDir || config.defaultDataDir;
}

/** Portico's folder in the platform's app-data place: %APPDATA%, ~/Library/Application Support, $XDG_DATA_HOME or ~/.local/share. */
export function platformDataDir(where: {
  platform: NodeJS.Platform;
  home: string;
  appData: string | undefined;
  xdgDataHome: string | undefined;
}): string {
  if (where.platform === 'win32') return join(where.appData ?? join(where.home, 'AppData', 'Roaming'), 'Portico');
  if (where.platform === 'darwin') return join(where.home, 'Library', 'Application Support', 'Portico');
  return join(where.xdgDataHome ?? join(where.home, '.local', 'share'), 'portico');
}

/** The data folder and what is in it are its user's only: folders 0700, files 0600 (POSIX modes). */
const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

/**
 * Creates the data folder 0700, or takes group and other access off it: from here on no other user
 * can reach anything inside, whatever its own mode. Cheap, so it runs before the service listens;
 * the walk through what is already inside (tightenDataDir) follows `listening`. Returns the folder
 * when its mode could not be changed (another user's folder, say): start-up goes on and says so.
 */
export function securePrivateDataRoot(root: string): string[] {
  mkdirSync(root, { recursive: true, mode: PRIVATE_DIR });
  // Windows has no POSIX modes: the folder's ACL (the user's profile) decides there.
  if (process.platform === 'win32') return [];
  try {
    chmodSync(root, PRIVATE_DIR);
    return [];
  } catch {
    return [root];
  }
}

/**
 * Takes group and other access off everything already in the data folder (an install from before
 * this rule, a file copied in), folder by folder; symbolic links are left alone. The hosts set umask
 * 077, so what the service creates is private from the start. A walk of every job's artifacts (10,000
 * files: ~280 ms) is not start-up's to pay: this runs after `listening`, off the event loop's way,
 * behind a root already 0700 (securePrivateDataRoot). Returns what could not be changed.
 */
export async function tightenDataDir(root: string): Promise<string[]> {
  if (process.platform === 'win32') return [];
  const untouched: string[] = [];
  const pending = [root];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    const current = dir;
    let entries: Dirent[];
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch {
      untouched.push(current);
      continue;
    }
    await Promise.all(
      entries.map(async (entry) => {
        if (entry.isSymbolicLink()) return;
        const path = join(current, entry.name);
        const isDir = entry.isDirectory();
        try {
          const mode = (await lstat(path)).mode & 0o777;
          if ((mode & 0o077) !== 0) await chmod(path, mode & (isDir ? PRIVATE_DIR : PRIVATE_FILE));
        } catch {
          untouched.push(path);
        }
        if (isDir) pending.push(path);
      }),
    );
  }
  return untouched;
}

import { chmodSync, type Dirent, lstatSync, mkdirSync, readdirSync } from 'node:fs';
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
 * Creates the data folder 0700 and takes group and other access off everything already in it (an
 * install from before this rule, a file copied in), folder by folder; symbolic links are left alone.
 * The hosts set umask 077, so what the service creates afterwards is private from the start.
 * Returns what could not be changed (another user's file, say): start-up goes on and says so.
 */
export function securePrivateDataDir(root: string): string[] {
  mkdirSync(root, { recursive: true, mode: PRIVATE_DIR });
  // Windows has no POSIX modes: the folder's ACL (the user's profile) decides there.
  if (process.platform === 'win32') return [];
  const untouched: string[] = [];
  const attempt = (path: string, change: () => void): boolean => {
    try {
      change();
      return true;
    } catch {
      untouched.push(path);
      return false;
    }
  };
  attempt(root, () => chmodSync(root, PRIVATE_DIR));
  const pending = [root];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    const current = dir;
    let entries: Dirent[] = [];
    if (!attempt(current, () => (entries = readdirSync(current, { withFileTypes: true })))) continue;
    for (const entry of entries) {
      if (entry.isSymbolicLink()) continue;
      const path = join(current, entry.name);
      const isDir = entry.isDirectory();
      attempt(path, () => {
        const mode = lstatSync(path).mode & 0o777;
        if ((mode & 0o077) !== 0) chmodSync(path, mode & (isDir ? PRIVATE_DIR : PRIVATE_FILE));
      });
      if (isDir) pending.push(path);
    }
  }
  return untouched;
}

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
export function resolveDataDir(explicit: string | undefined, config: { dataDir: string | undefined; defaultDataDir: string }): string {
  return explicit || config.dataDir || config.defaultDataDir;
}

/** Portico's folder in the platform's app-data place: %APPDATA%, ~/Library/Application Support, $XDG_DATA_HOME or ~/.local/share. */
export function platformDataDir(where: { platform: NodeJS.Platform; home: string; appData: string | undefined; xdgDataHome: string | undefined }): string {
  if (where.platform === 'win32') return join(where.appData ?? join(where.home, 'AppData', 'Roaming'), 'Portico');
  if (where.platform === 'darwin') return join(where.home, 'Library', 'Application Support', 'Portico');
  return join(where.xdgDataHome ?? join(where.home, '.local', 'share'), 'portico');
}

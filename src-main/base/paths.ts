import { homedir } from 'node:os';
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

/** `--data-dir`, else PORTICO_DATA_DIR, else the platform's app-data folder. */
export function resolveDataDir(
  explicit: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (explicit) return explicit;
  if (env.PORTICO_DATA_DIR) return env.PORTICO_DATA_DIR;
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Portico');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Portico');
  return join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'portico');
}

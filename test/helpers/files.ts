import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

export interface FilesUnderOptions {
  /** Lists only the files this accepts (all by default). */
  keep?: (path: string) => boolean | Promise<boolean>;
  /** A folder that cannot be read (one a running service removed during the walk) lists nothing instead of failing the walk. */
  skipUnreadable?: boolean;
}

/** Every file under `dir`, recursively (SQLite file, WAL, logs, settings, artifacts), for "no secret on disk" checks. */
export async function filesUnder(dir: string, options: FilesUnderOptions = {}): Promise<string[]> {
  const listing = readdir(dir, { withFileTypes: true });
  const entries: Dirent[] = options.skipUnreadable ? await listing.catch(() => []) : await listing;
  const out: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path, options)));
    else if (entry.isFile() && (options.keep === undefined || (await options.keep(path)))) out.push(path);
  }
  return out;
}

/** The files of a service's data folder a leak scan reads while jobs may still tidy up: all but screenshots and videos. */
export function dataFilesUnder(dir: string): Promise<string[]> {
  return filesUnder(dir, { keep: (path) => !path.endsWith('.png') && !path.endsWith('.webm'), skipUnreadable: true });
}

import { copyFile, mkdir, mkdtemp, readdir, readlink, rm, symlink } from 'node:fs/promises';
import path from 'node:path';

import { ValidationError } from '../base/errors.ts';

const PROFILE_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

// Chromium's "this folder is open" markers (Linux/macOS Singleton*, Windows lockfile) must not be
// copied, or the copy looks in use; caches are skipped because they are large and disposable.
const SKIPPED_NAMES = new Set([
  'SingletonLock',
  'SingletonSocket',
  'SingletonCookie',
  'lockfile',
  'DevToolsActivePort',
  'Cache',
  'Code Cache',
  'GPUCache',
  'GrShaderCache',
  'ShaderCache',
  'GraphiteDawnCache',
  'DawnGraphiteCache',
  'DawnWebGPUCache',
  'Crashpad',
]);

/** `<dataDir>/profiles/<profileId>`; rejects ids that could escape the profiles folder. */
export function profileDir(dataDir: string, profileId: string): string {
  if (!PROFILE_ID_RE.test(profileId)) {
    throw new ValidationError(`profile_id '${profileId}' is not a valid profile id`);
  }
  return path.join(dataDir, 'profiles', profileId);
}

/** Copies a profile folder into a fresh temp folder under `tempRoot`, for a run whose changes are thrown away. */
export async function copyProfileToTemp(source: string, tempRoot: string): Promise<string> {
  await mkdir(tempRoot, { recursive: true });
  const target = await mkdtemp(path.join(tempRoot, 'portico-profile-'));
  try {
    await copyTree(source, target);
  } catch (error) {
    await removeFolder(target);
    throw error;
  }
  return target;
}

/** Deletes a folder tree; retries because Chromium may still be letting go of files on Windows. */
export async function removeFolder(folder: string): Promise<void> {
  await rm(folder, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}

// A running browser may delete files while we copy, so a vanished entry is skipped, not fatal.
async function copyTree(source: string, target: string): Promise<void> {
  let entries;
  try {
    entries = await readdir(source, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  for (const entry of entries) {
    if (SKIPPED_NAMES.has(entry.name)) continue;
    const from = path.join(source, entry.name);
    const to = path.join(target, entry.name);
    try {
      if (entry.isDirectory()) {
        await mkdir(to, { recursive: true });
        await copyTree(from, to);
      } else if (entry.isSymbolicLink()) {
        await symlink(await readlink(from), to);
      } else if (entry.isFile()) {
        await copyFile(from, to);
      }
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ENOENT';
}

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ValidationError } from '../../base/errors.ts';
import { DEFAULT_ZIP_LIMITS, extractZipSafely, type SafeExtractOptions, type ZipLimits } from './safeZipExtraction.ts';
import { findManifestPath, MANIFEST_FILE, MAX_MANIFEST_BYTES, parseSkillManifest, type SkillManifest } from './skillManifest.ts';

export { parseSkillManifest, readExtractedManifest, type SkillManifest } from './skillManifest.ts';

export type SkillArchiveLimits = ZipLimits;
export const DEFAULT_SKILL_ARCHIVE_LIMITS: SkillArchiveLimits = DEFAULT_ZIP_LIMITS;

export interface ExtractedSkill {
  fileCount: number;
  totalBytes: number;
  manifest: SkillManifest;
}

/** What a skill zip without a manifest is told: the console says the same before upload. */
export const NO_MANIFEST_DETAIL = `Skill zip rejected: it has no ${MANIFEST_FILE} (put one at the root of the zip, or in the single folder that holds everything)`;

/**
 * A skill upload: the zip is extracted safely (safeZipExtraction.ts) into destDir, which must not
 * exist yet, and must hold a valid SKILL.md (skillManifest.ts) at its root or in its single top-level
 * folder. The manifest's presence and size are checked before any byte is written, its content
 * before the tree moves into place; on any failure nothing is left at destDir (ValidationError, 422).
 */
export async function extractSkillArchive(
  zipPath: string,
  destDir: string,
  limits: SkillArchiveLimits = DEFAULT_SKILL_ARCHIVE_LIMITS,
  room?: SafeExtractOptions['room'],
): Promise<ExtractedSkill> {
  // Filled in by the hooks below, which run inside the extraction.
  const seen: { path?: string; manifest?: SkillManifest } = {};
  const extracted = await extractZipSafely(zipPath, destDir, {
    limits,
    what: 'Skill zip',
    ...(room && { room }),
    inspect: (entries) => {
      const manifestPath = findManifestPath(entries);
      const found = entries.find((entry) => entry.path === manifestPath);
      if (found === undefined) throw new ValidationError(NO_MANIFEST_DETAIL);
      if (found.declaredBytes > MAX_MANIFEST_BYTES) {
        throw new ValidationError(`Skill zip rejected: ${found.path} is ${found.declaredBytes} bytes; the limit is ${MAX_MANIFEST_BYTES}`);
      }
      seen.path = found.path;
    },
    verify: async (root) => {
      if (seen.path === undefined) throw new ValidationError(NO_MANIFEST_DETAIL);
      const text = await readFile(path.join(root, ...seen.path.split('/')), 'utf8');
      seen.manifest = parseSkillManifest(text, seen.path);
    },
  });
  if (seen.manifest === undefined) throw new ValidationError(NO_MANIFEST_DETAIL);
  return { ...extracted, manifest: seen.manifest };
}

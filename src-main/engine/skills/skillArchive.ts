import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ValidationError } from '../../base/errors.ts';
import { DEFAULT_ZIP_LIMITS, extractZipSafely, type SafeExtractOptions, type ZipLimits } from './safeZipExtraction.ts';
import {
  describeFromReadme,
  findManifestPath,
  findReadmePath,
  MAX_MANIFEST_BYTES,
  MAX_README_BYTES,
  parseSkillManifest,
  type SkillManifest,
} from './skillManifest.ts';

export { parseSkillManifest, readExtractedManifest, type SkillManifest } from './skillManifest.ts';

export type SkillArchiveLimits = ZipLimits;
export const DEFAULT_SKILL_ARCHIVE_LIMITS: SkillArchiveLimits = DEFAULT_ZIP_LIMITS;

export interface ExtractedSkill {
  fileCount: number;
  totalBytes: number;
  /** The parsed SKILL.md; null for a skill without one (the interface does not require it). */
  manifest: SkillManifest | null;
  /** SKILL.md's `description`; without SKILL.md the README's first heading (or first line), else ''. */
  description: string;
}

/**
 * A skill upload: the zip is extracted safely (safeZipExtraction.ts) into destDir, which must not
 * exist yet. A SKILL.md (skillManifest.ts) at its root or in its single top-level folder is optional,
 * as the interface has it (§4.4: any .zip, named after the file); when present it must be valid, its
 * size checked before any byte is written and its content before the tree moves into place. Without
 * one, the description is the README's first heading (or first line), else ''. Every zip, with
 * SKILL.md or without, goes through the same safety checks; on any failure nothing is left at destDir
 * (ValidationError, 422).
 */
export async function extractSkillArchive(
  zipPath: string,
  destDir: string,
  limits: SkillArchiveLimits = DEFAULT_SKILL_ARCHIVE_LIMITS,
  room?: SafeExtractOptions['room'],
): Promise<ExtractedSkill> {
  // Filled in by the hooks below, which run inside the extraction.
  const seen: { path?: string; readme?: string; manifest?: SkillManifest; description?: string } = {};
  const extracted = await extractZipSafely(zipPath, destDir, {
    limits,
    what: 'Skill zip',
    ...(room && { room }),
    inspect: (entries) => {
      const manifestPath = findManifestPath(entries);
      const found = entries.find((entry) => entry.path === manifestPath);
      if (found === undefined) {
        const readme = findReadmePath(entries);
        if (readme !== null) seen.readme = readme;
        return;
      }
      if (found.declaredBytes > MAX_MANIFEST_BYTES) {
        throw new ValidationError(
          `Skill zip rejected: ${found.path} is ${found.declaredBytes} bytes; the limit is ${MAX_MANIFEST_BYTES}`,
        );
      }
      seen.path = found.path;
    },
    verify: async (root) => {
      if (seen.path !== undefined) {
        const text = await readFile(path.join(root, ...seen.path.split('/')), 'utf8');
        seen.manifest = parseSkillManifest(text, seen.path);
        seen.description = seen.manifest.description;
      } else {
        seen.description =
          seen.readme === undefined
            ? ''
            : describeFromReadme(await readHead(path.join(root, ...seen.readme.split('/'))));
      }
    },
  });
  return { ...extracted, manifest: seen.manifest ?? null, description: seen.description ?? '' };
}

/** The first MAX_README_BYTES of a file as UTF-8 (a character cut at the end is dropped). */
async function readHead(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(MAX_README_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, MAX_README_BYTES, 0);
    return new TextDecoder('utf-8', { fatal: false }).decode(buffer.subarray(0, bytesRead)).replace(/\uFFFD$/, '');
  } finally {
    await handle.close();
  }
}

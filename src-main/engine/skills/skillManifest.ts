import { lstat, readdir, readFile, realpath } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';
import { ValidationError } from '../../base/errors.ts';
import { unsafeNameProblem } from '../../contract/names.ts';

// The YAML parser (72 modules) is loaded when the first SKILL.md is parsed, not at start (docs/performance.md).
const requireModule = createRequire(import.meta.url);
let yaml: typeof import('yaml') | undefined;
function parseYaml(text: string): unknown {
  if (yaml === undefined) yaml = requireModule('yaml') as typeof import('yaml');
  return yaml.parse(text);
}

/** A skill's SKILL.md (agentskills.io): YAML frontmatter between '---' lines, then markdown. */
export interface SkillManifest {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  /** `allowed-tools` as written (the spec's space-delimited list; YAML lists are joined with spaces). */
  allowedTools?: string;
  metadata?: Record<string, string>;
  body: string;
  /** Where SKILL.md sits inside the extracted tree, e.g. 'SKILL.md' or 'my-skill/SKILL.md'. */
  path: string;
}

export const MANIFEST_FILE = 'SKILL.md';
/** SKILL.md is read into memory and parsed as YAML, so it gets a much tighter bound than other files. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

/** An entry of a skill's tree, as far as finding its SKILL.md needs. */
export interface SkillTreeEntry {
  /** Normalised relative path with '/' separators. */
  path: string;
  isDirectory: boolean;
}

/**
 * Where a skill's SKILL.md is: the root `SKILL.md`, else `<top>/SKILL.md` when everything sits in one
 * top-level folder. Null when there is none.
 */
export function findManifestPath(entries: readonly SkillTreeEntry[]): string | null {
  const files = entries.filter((p) => !p.isDirectory);
  let found = files.find((p) => p.path === MANIFEST_FILE);
  if (found === undefined) {
    const tops = new Set(entries.map((p) => p.path.split('/')[0]));
    const [top] = tops;
    const nested = entries.every((p) => p.path.includes('/') || p.isDirectory);
    if (tops.size === 1 && nested) found = files.find((p) => p.path === `${top}/${MANIFEST_FILE}`);
  }
  return found?.path ?? null;
}

/** README file names a skill without SKILL.md is described from (case-insensitive), in order of preference. */
const README_NAMES = ['readme.md', 'readme.markdown', 'readme.txt', 'readme'];
/** A README is read only this far for its description. */
export const MAX_README_BYTES = 64 * 1024;
/** The description of a skill without SKILL.md is cut to the length SKILL.md allows its own. */
export const MAX_DESCRIPTION_CHARS = 1024;

/**
 * Where a skill without SKILL.md keeps its README: at the root, else in the single top-level folder
 * that holds everything (the same rule as for SKILL.md). Null when there is none.
 */
export function findReadmePath(entries: readonly SkillTreeEntry[]): string | null {
  const files = entries.filter((p) => !p.isDirectory);
  const pick = (prefix: string): string | undefined => {
    for (const wanted of README_NAMES) {
      const hit = files.find((f) => f.path.startsWith(prefix) && f.path.slice(prefix.length).toLowerCase() === wanted);
      if (hit) return hit.path;
    }
    return undefined;
  };
  let found = pick('');
  if (found === undefined) {
    const tops = new Set(entries.map((p) => p.path.split('/')[0]));
    const [top] = tops;
    const nested = entries.every((p) => p.path.includes('/') || p.isDirectory);
    if (tops.size === 1 && nested) found = pick(`${top}/`);
  }
  return found ?? null;
}

/**
 * The description of a skill without SKILL.md, from its README's text: the first markdown heading
 * (`# Title`, or a Setext `Title` over `===`/`---`), else the first non-empty line; '' when the README
 * has no text. Markdown markers are left as written apart from the heading's `#`s; cut at 1024 chars.
 */
export function describeFromReadme(text: string): string {
  const lines = (text.startsWith('\uFEFF') ? text.slice(1) : text).split(/\r?\n/);
  let firstText: string | undefined;
  for (let i = 0; i < lines.length; i += 1) {
    const line = (lines[i] ?? '').trim();
    const atx = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (atx && (atx[1] ?? '').length > 0) return clip(atx[1] ?? '');
    if (line.length > 0 && /^(=+|-+)$/.test((lines[i + 1] ?? '').trim()) && !/^(=+|-+)$/.test(line)) return clip(line);
    if (firstText === undefined && line.length > 0 && !/^#+$/.test(line)) firstText = line;
  }
  return clip(firstText ?? '');
}

function clip(text: string): string {
  return text.length > MAX_DESCRIPTION_CHARS ? text.slice(0, MAX_DESCRIPTION_CHARS) : text;
}

/**
 * Reads the SKILL.md of an extracted skill, found by the rule the upload used (the root `SKILL.md`,
 * else `<single top folder>/SKILL.md`) rather than by a remembered path, and only if it is a regular
 * file really inside skillDir within the manifest size bound. Null when there is none.
 */
export async function readExtractedManifest(skillDir: string): Promise<string | null> {
  let root: string;
  let names: string[];
  try {
    root = await realpath(skillDir);
    names = await readdir(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const candidates = [MANIFEST_FILE];
  if (names.length === 1 && names[0] !== MANIFEST_FILE) candidates.push(`${names[0]}/${MANIFEST_FILE}`);
  for (const candidate of candidates) {
    const file = path.resolve(root, ...candidate.split('/'));
    let info;
    try {
      info = await lstat(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR')
        continue;
      throw error;
    }
    // Extraction never writes links, so a link or anything but a file here was not put there by us.
    if (!info.isFile() || info.size > MAX_MANIFEST_BYTES) continue;
    const real = await realpath(file);
    if (!real.startsWith(root + path.sep)) continue;
    return readFile(real, 'utf8');
  }
  return null;
}

function describeCause(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const FENCE = /^---[ \t]*(?:\r?\n|$)/;
const FENCE_LINE = /^---[ \t]*(?:\r?\n|$)/m;

/** Parses an agentskills.io SKILL.md (YAML frontmatter between '---' lines, then markdown); throws ValidationError naming the problem. */
export function parseSkillManifest(text: string, filePath: string): SkillManifest {
  const prefix = `${filePath} frontmatter`;
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const open = FENCE.exec(source);
  if (open === null || open.index !== 0) {
    throw new ValidationError(`${filePath} must start with YAML frontmatter: a first line '---'`);
  }
  const rest = source.slice(open[0].length);
  const close = FENCE_LINE.exec(rest);
  if (close === null) throw new ValidationError(`${prefix}: no closing '---' line`);
  const yamlText = rest.slice(0, close.index);
  const body = rest.slice(close.index + close[0].length).replace(/^(?:\r?\n)+/, '');

  let data: unknown;
  try {
    data = parseYaml(yamlText);
  } catch (error) {
    const message = describeCause(error).split('\n')[0];
    throw new ValidationError(`${prefix} is not valid YAML: ${message}`, { cause: error });
  }
  if (data === null || data === undefined) data = {};
  const parsed = SkillFrontmatter.safeParse(data, { reportInput: true });
  if (!parsed.success) {
    // The first problem only: the manifest is fixed one field at a time, in the order the spec lists them.
    const issue = parsed.error.issues[0];
    // A value inside a map (metadata.version) is named by its whole path; a top-level key names itself.
    const where = issue !== undefined && issue.path.length > 1 ? `'${issue.path.join('.')}' ` : '';
    throw new ValidationError(`${prefix}: ${where}${issue?.message ?? 'is invalid'}`);
  }
  const { name, description, license, compatibility, metadata } = parsed.data;
  const allowedTools = parsed.data['allowed-tools'];
  return {
    name,
    description,
    body,
    path: filePath,
    ...(license !== undefined && { license }),
    ...(compatibility !== undefined && { compatibility }),
    ...(allowedTools !== undefined && { allowedTools }),
    ...(metadata !== undefined && { metadata }),
  };
}

// YAML writes an empty value as null: the spec's optional fields treat that as absent.
const absentIfNull = (value: unknown): unknown => (value === null ? undefined : value);

/** A frontmatter string: trimmed, not empty, at most `max` characters; messages name the key as the spec writes it. */
function frontmatterText(key: string, max: number) {
  return z
    .string({ error: (issue) => (issue.input === undefined ? `'${key}' is required` : `'${key}' must be a string`) })
    .trim()
    .min(1, `'${key}' must not be empty`)
    .refine((value) => value.length <= max, {
      error: (issue) => `'${key}' must be at most ${max} characters (got ${String(issue.input).length})`,
    });
}

const optionalFrontmatterText = (key: string, max: number) =>
  z.preprocess(absentIfNull, frontmatterText(key, max).optional());

/** agentskills.io SKILL.md frontmatter: `name` and `description` required, the rest optional. */
const SkillFrontmatter = z.object(
  {
    name: z.preprocess(
      absentIfNull,
      frontmatterText('name', 64).refine((value) => unsafeNameProblem(value) === undefined, {
        error: (issue) => `'name' ${unsafeNameProblem(String(issue.input))}`,
      }),
    ),
    description: z.preprocess(absentIfNull, frontmatterText('description', 1024)),
    license: optionalFrontmatterText('license', Number.POSITIVE_INFINITY),
    compatibility: optionalFrontmatterText('compatibility', 500),
    // The spec's space-delimited list; a YAML list of names is accepted and joined.
    'allowed-tools': z.preprocess(
      absentIfNull,
      z
        .union([z.string(), z.array(z.string()).transform((tools) => tools.join(' '))], {
          error: "'allowed-tools' must be a space-separated string",
        })
        .optional(),
    ),
    metadata: z.preprocess(
      absentIfNull,
      z
        .record(z.string(), z.string({ error: 'must be a string' }), {
          error: "'metadata' must be a map of strings to strings",
        })
        .optional(),
    ),
  },
  { error: 'must be a YAML mapping of keys to values' },
);

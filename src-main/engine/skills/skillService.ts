import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PayloadTooLargeError,
  ValidationError,
} from '../../base/errors.ts';
import { newId } from '../../base/ids.ts';
import type { Logger } from '../../base/logger.ts';
import { messages } from '../../contract/messages.ts';
import { unsafeNameProblem } from '../../contract/names.ts';
import type { Skill } from '../../contract/skill.ts';
import { toSkill, type SkillRecord } from '../../store/skills.ts';
import { isUniqueViolation, type Store } from '../../store/store.ts';
import type { DiskQuotas } from '../limits/diskQuotas.ts';
import {
  DEFAULT_SKILL_ARCHIVE_LIMITS,
  extractSkillArchive,
  readExtractedManifest,
  type SkillManifest,
} from './skillArchive.ts';

export interface SkillUpload {
  orgId: string;
  folder: string;
  isPublic: boolean;
  /** The client's file name; the skill is named after it without `.zip`. */
  filename: string;
  content: Readable;
  /** True when the transport cut the upload at its size limit. */
  wasTruncated(): boolean;
}

export interface SkillPaths {
  /** `<dataDir>/skills`: one extracted folder per skill id. */
  skillsDir: string;
  /** Same filesystem as skillsDir, so a finished extraction moves in with one rename. */
  tmpDir: string;
}

/** Skill uploads, listing and deletion; the zip is checked before anything is kept. */
export class SkillService {
  readonly #store: Store;
  readonly #paths: SkillPaths;
  readonly #logger: Logger;
  readonly #quotas: DiskQuotas | undefined;

  /** `quotas`: the org's skills disk quota, checked against the zip's declared size before extraction. */
  constructor(store: Store, paths: SkillPaths, logger: Logger, quotas?: DiskQuotas) {
    this.#store = store;
    this.#paths = paths;
    this.#logger = logger;
    this.#quotas = quotas;
  }

  /** The folder holding a skill's extracted files. */
  skillDir(skillId: string): string {
    return join(this.#paths.skillsDir, skillId);
  }

  /** `name.zip` → `name`; anything else is a 422. */
  skillNameFrom(filename: string): string {
    const base = basename(filename.replace(/\\/g, '/'));
    if (!/\.zip$/i.test(base)) throw new ValidationError(`body.file: must be a .zip file (got '${base}')`);
    const name = base.slice(0, -4).trim();
    if (name.length === 0 || name.length > 200)
      throw new ValidationError('body.file: the file name must give a skill name of 1-200 characters');
    const unsafe = unsafeNameProblem(name);
    if (unsafe) throw new ValidationError(`body.file: the file name (the skill's name) ${unsafe}`);
    return name;
  }

  /** Streams the zip to a temp file, checks and extracts it (a SKILL.md, if any, must be valid), then records the skill. */
  async upload(upload: SkillUpload): Promise<Skill> {
    const name = this.skillNameFrom(upload.filename);
    if (this.#store.skills.nameTaken(upload.orgId, upload.folder, name)) {
      upload.content.resume();
      throw new ConflictError(messages.skillExists(name, upload.folder));
    }
    const id = newId();
    await mkdir(this.#paths.tmpDir, { recursive: true });
    await mkdir(this.#paths.skillsDir, { recursive: true });
    const zipPath = join(this.#paths.tmpDir, `upload-${id}.zip`);
    const extractDir = join(this.#paths.tmpDir, `skill-${id}`);
    try {
      await pipeline(upload.content, createWriteStream(zipPath, { mode: 0o600 }));
      if (upload.wasTruncated()) throw new PayloadTooLargeError(messages.skillTooLarge);
      const extracted = await extractSkillArchive(
        zipPath,
        extractDir,
        DEFAULT_SKILL_ARCHIVE_LIMITS,
        await this.#room(upload.orgId),
      );
      const record = this.#insert(
        upload,
        name,
        id,
        extracted.manifest,
        extracted.description,
        extracted.totalBytes,
        extracted.fileCount,
      );
      try {
        await rename(extractDir, this.skillDir(id));
      } catch (error) {
        this.#store.skills.delete(id);
        throw error;
      }
      return toSkill(record);
    } finally {
      await rm(zipPath, { force: true });
      await rm(extractDir, { recursive: true, force: true });
    }
  }

  /** What the org's skills quota leaves for this upload; a full quota is refused before the zip is read. */
  async #room(orgId: string): Promise<{ bytes: number; refuse(declared: number): Error } | undefined> {
    const quotas = this.#quotas;
    if (!quotas) return undefined;
    const used = await quotas.used('skills', orgId);
    return {
      bytes: Math.max(0, quotas.quota('skills') - used),
      refuse: (declared) => quotas.refusal('skills', orgId, used, declared),
    };
  }

  #insert(
    upload: SkillUpload,
    name: string,
    id: string,
    manifest: SkillManifest | null,
    description: string,
    sizeBytes: number,
    fileCount: number,
  ): SkillRecord {
    try {
      return this.#store.skills.insert({
        id,
        orgId: upload.orgId,
        folderName: upload.folder,
        name,
        isPublic: upload.isPublic,
        manifestName: manifest?.name ?? null,
        description,
        sizeBytes,
        fileCount,
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(messages.skillExists(name, upload.folder));
      throw error;
    }
  }

  list(orgId: string, includePublic: boolean): Skill[] {
    return this.#store.skills.list(orgId, includePublic).map(toSkill);
  }

  /** The SKILL.md text of an own or public skill; another org's private skill does not exist for the caller. */
  async skillMarkdown(orgId: string, skillId: string): Promise<string> {
    const skill = this.#store.skills.get(skillId);
    if (!skill || (skill.org_id !== orgId && !skill.is_public)) throw new NotFoundError(messages.skillNotFound);
    const text = await readExtractedManifest(this.skillDir(skillId));
    if (text === null) throw new NotFoundError(messages.skillHasNoManifest);
    return text;
  }

  /** Deletes an own skill (detaching it from portals) and its files. */
  async delete(orgId: string, skillId: string): Promise<void> {
    const skill = this.#store.skills.get(skillId);
    if (!skill || (skill.org_id !== orgId && !skill.is_public)) throw new NotFoundError(messages.skillNotFound);
    if (skill.org_id !== orgId) throw new ForbiddenError('Only the organization that uploaded a skill can delete it');
    this.#store.skills.delete(skillId);
    await rm(this.skillDir(skillId), { recursive: true, force: true });
  }

  /** Removes leftovers of interrupted uploads and folders whose skill row is gone. */
  async cleanUp(): Promise<void> {
    await rm(this.#paths.tmpDir, { recursive: true, force: true });
    let entries: string[] = [];
    try {
      entries = await readdir(this.#paths.skillsDir);
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!this.#store.skills.get(entry)) {
        this.#logger.warn('removing orphaned skill folder', { folder: entry });
        await rm(join(this.#paths.skillsDir, entry), { recursive: true, force: true });
      }
    }
  }
}

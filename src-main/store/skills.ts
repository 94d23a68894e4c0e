import type { Skill } from '../contract/skill.ts';
import { isoNow } from '../base/clock.ts';
import { newId } from '../base/ids.ts';
import { prepared, type Db } from './database.ts';

interface SkillJoinedRow {
  id: string;
  folder_id: string;
  folder_name: string;
  org_id: string;
  org_name: string;
  name: string;
  is_public: number;
  config: string | null;
  template_id: string | null;
  manifest_name: string | null;
  description: string | null;
  size_bytes: number;
  file_count: number;
  created_at: string;
  updated_at: string;
}

/** What the agent needs of a skill beyond its public fields. */
export interface SkillRecord extends Skill {
  manifest_name: string | null;
  size_bytes: number;
  file_count: number;
}

export interface NewSkill {
  id?: string;
  orgId: string;
  folderName: string;
  name: string;
  isPublic: boolean;
  manifestName: string | null;
  description: string | null;
  sizeBytes: number;
  fileCount: number;
}

const SELECT_JOINED = `
  SELECT s.*, f.name AS folder_name, o.name AS org_name
  FROM skills s JOIN skill_folders f ON f.id = s.folder_id JOIN orgs o ON o.id = s.org_id`;

function toRecord(row: SkillJoinedRow): SkillRecord {
  return {
    id: row.id,
    folder_id: row.folder_id,
    folder_name: row.folder_name,
    org_id: row.org_id,
    org_name: row.org_name,
    name: row.name,
    is_public: row.is_public === 1,
    config: row.config === null ? null : (JSON.parse(row.config) as Record<string, unknown>),
    template_id: row.template_id,
    description: row.description,
    created_at: row.created_at,
    updated_at: row.updated_at,
    manifest_name: row.manifest_name,
    size_bytes: row.size_bytes,
    file_count: row.file_count,
  };
}

/** The public fields of a record, named one by one so a storage-only field never rides along. */
export function toSkill(record: SkillRecord): Skill {
  return {
    id: record.id,
    folder_id: record.folder_id,
    folder_name: record.folder_name,
    org_id: record.org_id,
    org_name: record.org_name,
    name: record.name,
    is_public: record.is_public,
    config: record.config,
    template_id: record.template_id,
    description: record.description,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** Skills and the folders that group them. */
export class SkillRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Whether `name` is taken in the org's folder `folderName` (a missing folder holds nothing). */
  nameTaken(orgId: string, folderName: string, name: string): boolean {
    return (
      prepared(
        this.#db,
        'SELECT 1 FROM skills s JOIN skill_folders f ON f.id = s.folder_id WHERE f.org_id = ? AND f.name = ? AND s.name = ?',
      ).get(orgId, folderName, name) !== undefined
    );
  }

  /** Inserts the skill, creating its folder if absent. Throws SQLITE_CONSTRAINT_UNIQUE on a taken name. */
  insert(skill: NewSkill): SkillRecord {
    const now = isoNow();
    const id = skill.id ?? newId();
    this.#db.transaction(() => {
      prepared(this.#db, 'INSERT OR IGNORE INTO skill_folders (id, org_id, name, created_at) VALUES (?, ?, ?, ?)').run(
        newId(),
        skill.orgId,
        skill.folderName,
        now,
      );
      const folder = prepared<[string, string], { id: string }>(
        this.#db,
        'SELECT id FROM skill_folders WHERE org_id = ? AND name = ?',
      ).get(skill.orgId, skill.folderName);
      if (!folder) throw new Error('skill folder vanished during insert');
      prepared(
        this.#db,
        `INSERT INTO skills (id, folder_id, org_id, name, is_public, config, template_id, manifest_name, description,
             size_bytes, file_count, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?, ?)`,
      ).run(
        id,
        folder.id,
        skill.orgId,
        skill.name,
        skill.isPublic ? 1 : 0,
        skill.manifestName,
        skill.description,
        skill.sizeBytes,
        skill.fileCount,
        now,
        now,
      );
    })();
    const created = this.get(id);
    if (!created) throw new Error('skill vanished after insert');
    return created;
  }

  get(id: string): SkillRecord | undefined {
    const row = prepared<[string], SkillJoinedRow>(this.#db, `${SELECT_JOINED} WHERE s.id = ?`).get(id);
    return row ? toRecord(row) : undefined;
  }

  /** Several skills in one query, by id (ids not found are absent from the map). */
  getMany(ids: readonly string[]): Map<string, SkillRecord> {
    const found = new Map<string, SkillRecord>();
    if (ids.length === 0) return found;
    // One statement text for any number of ids: they travel as one JSON array.
    const rows = prepared<[string], SkillJoinedRow>(
      this.#db,
      `${SELECT_JOINED} WHERE s.id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify([...new Set(ids)]));
    for (const row of rows) found.set(row.id, toRecord(row));
    return found;
  }

  /** The org's own skills, plus other orgs' public skills when asked. */
  list(orgId: string, includePublic: boolean): SkillRecord[] {
    const sql = includePublic
      ? `${SELECT_JOINED} WHERE s.org_id = ? OR s.is_public = 1 ORDER BY s.org_id = ? DESC, f.name, s.name`
      : `${SELECT_JOINED} WHERE s.org_id = ? ORDER BY f.name, s.name`;
    const rows = includePublic
      ? prepared<[string, string], SkillJoinedRow>(this.#db, sql).all(orgId, orgId)
      : prepared<[string], SkillJoinedRow>(this.#db, sql).all(orgId);
    return rows.map(toRecord);
  }

  /** A skill the org may attach: its own, or a public one. */
  getVisible(orgId: string, id: string): SkillRecord | undefined {
    const skill = this.get(id);
    return skill && (skill.org_id === orgId || skill.is_public) ? skill : undefined;
  }

  /** Bytes the org's extracted skills hold (its disk quota). */
  totalBytes(orgId: string): number {
    return (
      prepared<[string], { total: number | null }>(
        this.#db,
        'SELECT SUM(size_bytes) AS total FROM skills WHERE org_id = ?',
      ).get(orgId)?.total ?? 0
    );
  }

  delete(id: string): boolean {
    return prepared(this.#db, 'DELETE FROM skills WHERE id = ?').run(id).changes > 0;
  }
}

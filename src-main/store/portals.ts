import type { JsonObject } from '../contract/common.ts';
import { isoNow } from '../base/clock.ts';
import { newId } from '../base/ids.ts';
import { prepared, type Db } from './database.ts';
import { ParsedJsonCache } from './jsonColumns.ts';

/** form_schema, output_schema and humanized_urls texts, parsed once each (frozen: see jsonColumns.ts). */
const portalJson = new ParsedJsonCache();

interface PortalRowRaw {
  id: string;
  org_id: string;
  endpoint_name: string;
  start_url: string;
  task: string;
  form_schema: string;
  output_schema: string | null;
  profile_id: string | null;
  humanized_urls: string | null;
  webhook_url: string | null;
  replay_enabled: number;
  assist_model: string | null;
  record_video: number | null;
  browser_session_id: string | null;
  /** Migration 0014; absent only on rows read before it ran. */
  credential_id?: string | null;
  /** Migration 0020 (JSON array); absent only on rows read before it ran. */
  browser_host_labels?: string | null;
  created_at: string;
  updated_at: string;
}

/** A portal as stored, with its attached skill ids in order. */
export interface PortalRecord {
  id: string;
  org_id: string;
  endpoint_name: string;
  start_url: string;
  task: string;
  form_schema: JsonObject;
  output_schema: JsonObject | null;
  profile_id: string | null;
  humanized_urls: string[] | null;
  webhook_url: string | null;
  /** Whether model jobs may replay the recorded trace (a job's `replay` option overrides). */
  replay_enabled: boolean;
  /** The model builtin:autofill may ask to map keys its rules leave unmatched; null is off. */
  assist_model: string | null;
  /** Whether its jobs are recorded; null follows the operator's default (a job's `record_video` overrides). */
  record_video: boolean | null;
  /** The live session its jobs run in (a job's `browser_session_id` overrides); null: a fresh browser. */
  browser_session_id: string | null;
  /** The stored credential its jobs sign in with (a job's `credential_id` overrides); null: none. */
  credential_id: string | null;
  /** The labels its jobs' browser host must carry (a job's `browser_host_labels` overrides); null: any host. */
  browser_host_labels: string[] | null;
  skill_ids: string[];
  created_at: string;
  updated_at: string;
}

export type PortalFields = Omit<PortalRecord, 'id' | 'org_id' | 'endpoint_name' | 'created_at' | 'updated_at'>;

const jsonOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : JSON.stringify(value);
const boolOrNull = (value: boolean | null | undefined): number | null =>
  value === null || value === undefined ? null : value ? 1 : 0;

/** Portals, unique by (org_id, endpoint_name), and their ordered skill attachments. */
export class PortalRepository {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  #toRecord(row: PortalRowRaw, skillIds = this.#skillIdsOf(row.id)): PortalRecord {
    return {
      id: row.id,
      org_id: row.org_id,
      endpoint_name: row.endpoint_name,
      start_url: row.start_url,
      task: row.task,
      form_schema: portalJson.parse<JsonObject>(row.form_schema),
      output_schema: row.output_schema === null ? null : portalJson.parse<JsonObject>(row.output_schema),
      profile_id: row.profile_id,
      humanized_urls: row.humanized_urls === null ? null : [...portalJson.parse<string[]>(row.humanized_urls)],
      webhook_url: row.webhook_url,
      replay_enabled: row.replay_enabled !== 0,
      assist_model: row.assist_model,
      record_video: row.record_video === null ? null : row.record_video !== 0,
      browser_session_id: row.browser_session_id,
      credential_id: row.credential_id ?? null,
      browser_host_labels: row.browser_host_labels ? (JSON.parse(row.browser_host_labels) as string[]) : null,
      skill_ids: skillIds,
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  #skillIdsOf(portalId: string): string[] {
    return prepared<[string], { skill_id: string }>(
      this.#db,
      'SELECT skill_id FROM portal_skills WHERE portal_id = ? ORDER BY position',
    )
      .all(portalId)
      .map((r) => r.skill_id);
  }

  #replaceSkills(portalId: string, skillIds: readonly string[]): void {
    prepared(this.#db, 'DELETE FROM portal_skills WHERE portal_id = ?').run(portalId);
    const insert = prepared(this.#db, 'INSERT INTO portal_skills (portal_id, skill_id, position) VALUES (?, ?, ?)');
    for (const [position, skillId] of [...new Set(skillIds)].entries()) insert.run(portalId, skillId, position);
  }

  exists(orgId: string, endpointName: string): boolean {
    return (
      prepared(this.#db, 'SELECT 1 FROM portals WHERE org_id = ? AND endpoint_name = ?').get(orgId, endpointName) !==
      undefined
    );
  }

  /** Inserts the portal and its skills in one transaction. Throws SQLITE_CONSTRAINT_UNIQUE on a taken name. */
  insert(orgId: string, endpointName: string, fields: PortalFields): PortalRecord {
    const now = isoNow();
    const id = newId();
    this.#db.transaction(() => {
      prepared(
        this.#db,
        `INSERT INTO portals (id, org_id, endpoint_name, start_url, task, form_schema, output_schema, profile_id,
             humanized_urls, webhook_url, replay_enabled, assist_model, record_video, browser_session_id, credential_id, browser_host_labels, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        id,
        orgId,
        endpointName,
        fields.start_url,
        fields.task,
        JSON.stringify(fields.form_schema),
        jsonOrNull(fields.output_schema),
        fields.profile_id,
        jsonOrNull(fields.humanized_urls),
        fields.webhook_url,
        fields.replay_enabled ? 1 : 0,
        fields.assist_model,
        boolOrNull(fields.record_video),
        fields.browser_session_id,
        fields.credential_id,
        jsonOrNull(fields.browser_host_labels),
        now,
        now,
      );
      this.#replaceSkills(id, fields.skill_ids);
    })();
    const created = this.get(orgId, endpointName);
    if (!created) throw new Error('portal vanished after insert');
    return created;
  }

  get(orgId: string, endpointName: string): PortalRecord | undefined {
    const row = prepared<[string, string], PortalRowRaw>(
      this.#db,
      'SELECT * FROM portals WHERE org_id = ? AND endpoint_name = ?',
    ).get(orgId, endpointName);
    return row ? this.#toRecord(row) : undefined;
  }

  /** The org's portals in two queries, whatever their number: the rows, then every skill attachment of the org. */
  list(orgId: string): PortalRecord[] {
    const rows = prepared<[string], PortalRowRaw>(
      this.#db,
      'SELECT * FROM portals WHERE org_id = ? ORDER BY created_at, endpoint_name',
    ).all(orgId);
    const skillIds = new Map<string, string[]>();
    const attachments = prepared<[string], { portal_id: string; skill_id: string }>(
      this.#db,
      'SELECT ps.portal_id, ps.skill_id FROM portal_skills ps JOIN portals p ON p.id = ps.portal_id WHERE p.org_id = ? ORDER BY ps.portal_id, ps.position',
    ).all(orgId);
    for (const { portal_id, skill_id } of attachments) {
      const list = skillIds.get(portal_id);
      if (list) list.push(skill_id);
      else skillIds.set(portal_id, [skill_id]);
    }
    return rows.map((row) => this.#toRecord(row, skillIds.get(row.id) ?? []));
  }

  /** Writes the full new field set (the caller merged the patch) and bumps updated_at. */
  update(orgId: string, endpointName: string, fields: PortalFields): PortalRecord | undefined {
    const current = this.get(orgId, endpointName);
    if (!current) return undefined;
    this.#db.transaction(() => {
      prepared(
        this.#db,
        `UPDATE portals SET start_url = ?, task = ?, form_schema = ?, output_schema = ?, profile_id = ?,
             humanized_urls = ?, webhook_url = ?, replay_enabled = ?, assist_model = ?, record_video = ?, browser_session_id = ?, credential_id = ?, browser_host_labels = ?, updated_at = ? WHERE id = ?`,
      ).run(
        fields.start_url,
        fields.task,
        JSON.stringify(fields.form_schema),
        jsonOrNull(fields.output_schema),
        fields.profile_id,
        jsonOrNull(fields.humanized_urls),
        fields.webhook_url,
        fields.replay_enabled ? 1 : 0,
        fields.assist_model,
        boolOrNull(fields.record_video),
        fields.browser_session_id,
        fields.credential_id,
        jsonOrNull(fields.browser_host_labels),
        isoNow(),
        current.id,
      );
      this.#replaceSkills(current.id, fields.skill_ids);
    })();
    return this.get(orgId, endpointName);
  }

  delete(orgId: string, endpointName: string): boolean {
    return (
      prepared(this.#db, 'DELETE FROM portals WHERE org_id = ? AND endpoint_name = ?').run(orgId, endpointName)
        .changes > 0
    );
  }
}

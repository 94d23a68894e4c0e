import { deepFreeze } from '../base/deepFreeze.ts';
import { ConflictError, NotFoundError, ValidationError } from '../base/errors.ts';
import type { JsonObject } from '../contract/common.ts';
import { credentialMessages } from '../contract/credential.ts';
import { messages } from '../contract/messages.ts';
import { isDeepStrictEqual } from 'node:util';

import {
  PORTAL_READ_ONLY_FIELDS,
  type Portal,
  type PortalCreateRequest,
  type PortalUpdateRequest,
} from '../contract/portal.ts';
import type { PortalFields, PortalRecord } from '../store/portals.ts';
import { isUniqueViolation, type Store } from '../store/store.ts';
import { toSkill, type SkillRecord } from '../store/skills.ts';
import type { JsonSchemaCompiler } from '../base/jsonSchema.ts';

/** Orgs whose last portal list is kept (see PortalService.list). */
const LIST_CACHE_ORGS = 64;

/** Live public sessions, for a portal's `browser_session_id`. */
export interface PortalSessions {
  isActiveInOrg(sessionId: string, orgId: string): boolean;
}

/** Portals: validation of schemas and references, and the public shape of §2.1. */
export class PortalService {
  readonly #store: Store;
  readonly #schemas: JsonSchemaCompiler;
  readonly #sessions: PortalSessions | undefined;
  /** Each org's last list (deep-frozen) and the database generation it was read at (the most recently listed orgs). */
  readonly #lists = new Map<string, { generation: string; portals: Portal[] }>();

  /** Without `sessions`, every `browser_session_id` is not found. */
  constructor(store: Store, schemas: JsonSchemaCompiler, sessions?: PortalSessions) {
    this.#store = store;
    this.#schemas = schemas;
    this.#sessions = sessions;
  }

  /** The portal as the API returns it, with its attached skills resolved. */
  toPortal(
    record: PortalRecord,
    skillsById: ReadonlyMap<string, SkillRecord> = this.#store.skills.getMany(record.skill_ids),
  ): Portal {
    const skills = record.skill_ids.flatMap((id) => {
      const skill = skillsById.get(id);
      return skill ? [toSkill(skill)] : [];
    });
    return {
      id: record.id,
      org_id: record.org_id,
      endpoint_name: record.endpoint_name,
      start_url: record.start_url,
      task: record.task,
      form_schema: record.form_schema,
      output_schema: record.output_schema,
      profile_id: record.profile_id,
      humanized_urls: record.humanized_urls,
      webhook_url: record.webhook_url,
      replay_enabled: record.replay_enabled,
      assist_model: record.assist_model,
      record_video: record.record_video,
      browser_session_id: record.browser_session_id,
      credential_id: record.credential_id,
      browser_host_labels: record.browser_host_labels,
      skills,
      created_at: record.created_at,
      updated_at: record.updated_at,
    };
  }

  /**
   * `newSessionId`: the session this request names (checked to be live in the org). One stored earlier
   * may have ended since; that is only refused when a job starts, so the portal stays editable.
   */
  #validate(
    orgId: string,
    fields: PortalFields,
    newSessionId: string | null | undefined,
    newCredentialId?: string | null,
  ): void {
    if (fields.browser_session_id !== null && fields.profile_id !== null) {
      throw new ValidationError(
        "body.browser_session_id: a portal cannot have both profile_id and browser_session_id (jobs in a session use that session's browser and its profile); set one of them to null",
      );
    }
    this.#schemas.compileObjectSchema(fields.form_schema, 'body.form_schema');
    if (fields.output_schema) this.#schemas.compile(fields.output_schema, 'body.output_schema');
    if (fields.profile_id && !this.#store.profiles.getForOrg(orgId, fields.profile_id)) {
      throw new ValidationError(`body.profile_id: no browser profile '${fields.profile_id}' in this organization`);
    }
    for (const skillId of fields.skill_ids) {
      if (!this.#store.skills.getVisible(orgId, skillId)) {
        throw new ValidationError(`body.skill_ids: no skill '${skillId}' visible to this organization`);
      }
    }
    if (newSessionId && !this.#sessions?.isActiveInOrg(newSessionId, orgId))
      throw new NotFoundError(messages.sessionNotFound);
    if (newCredentialId && !this.#store.credentials.getForOrg(orgId, newCredentialId))
      throw new NotFoundError(credentialMessages.notFound);
  }

  /** Creates a portal; 409 with the interface's message when the endpoint name is taken. */
  create(orgId: string, request: PortalCreateRequest): Portal {
    if (this.#store.portals.exists(orgId, request.endpoint_name))
      throw new ConflictError(messages.portalExists(request.endpoint_name));
    const fields: PortalFields = {
      start_url: request.start_url,
      task: request.task,
      form_schema: request.form_schema ?? ({} satisfies JsonObject),
      output_schema: request.output_schema ?? null,
      profile_id: request.profile_id ?? null,
      humanized_urls: request.humanized_urls ?? null,
      webhook_url: request.webhook_url ?? null,
      replay_enabled: request.replay_enabled ?? true,
      assist_model: request.assist_model ?? null,
      record_video: request.record_video ?? null,
      browser_session_id: request.browser_session_id ?? null,
      credential_id: request.credential_id ?? null,
      browser_host_labels: request.browser_host_labels ?? null,
      skill_ids: request.skill_ids ?? [],
    };
    this.#validate(orgId, fields, request.browser_session_id, request.credential_id);
    try {
      return this.toPortal(this.#store.portals.insert(orgId, request.endpoint_name, fields));
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError(messages.portalExists(request.endpoint_name));
      throw error;
    }
  }

  /** The stored portal, or 404 `Portal not found`. */
  getRecord(orgId: string, endpointName: string): PortalRecord {
    const record = this.#store.portals.get(orgId, endpointName);
    if (!record) throw new NotFoundError(messages.portalNotFound);
    return record;
  }

  get(orgId: string, endpointName: string): Portal {
    return this.toPortal(this.getRecord(orgId, endpointName));
  }

  /**
   * The org's portals: one query for the portals, one for their attachments, one for every skill they
   * name. Served again without a query while the database is unchanged (Store.generation: no write
   * here, no commit elsewhere), as clients poll it; the list served (the array and every portal) is deep-frozen,
   * shared by every caller, and the API keeps its JSON text by it (api/routeTable.ts).
   */
  list(orgId: string): Portal[] {
    const generation = this.#store.generation();
    const cached = this.#lists.get(orgId);
    if (cached?.generation === generation) return cached.portals;
    const records = this.#store.portals.list(orgId);
    const skills = this.#store.skills.getMany(records.flatMap((record) => record.skill_ids));
    const portals = deepFreeze(records.map((record) => this.toPortal(record, skills)));
    this.#lists.delete(orgId);
    this.#lists.set(orgId, { generation, portals });
    if (this.#lists.size > LIST_CACHE_ORGS) this.#lists.delete(this.#lists.keys().next().value as string);
    return portals;
  }

  /** Changes only the fields present in the patch; `skill_ids` replaces the set. */
  update(orgId: string, endpointName: string, patch: PortalUpdateRequest): Portal {
    const current = this.getRecord(orgId, endpointName);
    // The object a GET returned may come back whole: its read-only fields must still say what is stored.
    const stored = this.toPortal(current);
    const changed = PORTAL_READ_ONLY_FIELDS.filter(
      (name) => patch[name] !== undefined && !isDeepStrictEqual(patch[name], stored[name]),
    );
    if (changed.length)
      throw new ValidationError(
        changed
          .map((name) => `body.${name}: is read-only (a PATCH may repeat the stored value, not change it)`)
          .join('; '),
      );
    const fields: PortalFields = {
      start_url: patch.start_url ?? current.start_url,
      task: patch.task ?? current.task,
      form_schema: patch.form_schema ?? current.form_schema,
      output_schema: patch.output_schema === undefined ? current.output_schema : patch.output_schema,
      profile_id: patch.profile_id === undefined ? current.profile_id : patch.profile_id,
      humanized_urls: patch.humanized_urls === undefined ? current.humanized_urls : patch.humanized_urls,
      webhook_url: patch.webhook_url === undefined ? current.webhook_url : patch.webhook_url,
      replay_enabled: patch.replay_enabled ?? current.replay_enabled,
      assist_model: patch.assist_model === undefined ? current.assist_model : patch.assist_model,
      record_video: patch.record_video === undefined ? current.record_video : patch.record_video,
      browser_session_id:
        patch.browser_session_id === undefined ? current.browser_session_id : patch.browser_session_id,
      credential_id: patch.credential_id === undefined ? current.credential_id : patch.credential_id,
      browser_host_labels:
        patch.browser_host_labels === undefined ? current.browser_host_labels : patch.browser_host_labels,
      skill_ids: patch.skill_ids ?? current.skill_ids,
    };
    this.#validate(orgId, fields, patch.browser_session_id, patch.credential_id);
    const updated = this.#store.portals.update(orgId, endpointName, fields);
    if (!updated) throw new NotFoundError(messages.portalNotFound);
    return this.toPortal(updated);
  }

  delete(orgId: string, endpointName: string): void {
    if (!this.#store.portals.delete(orgId, endpointName)) throw new NotFoundError(messages.portalNotFound);
  }
}

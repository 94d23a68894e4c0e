import { systemClock, type Clock } from '../../base/clock.ts';
import { ConflictError, NotFoundError } from '../../base/errors.ts';
import { newId } from '../../base/ids.ts';
import type { BrowserRuntime } from '../../browser/browserRuntime.ts';
import { messages } from '../../contract/messages.ts';
import type { Profile, ProfileCreateRequest, ProfileSessionCreated } from '../../contract/profile.ts';
import type { ProfileRow } from '../../store/profiles.ts';
import type { Store } from '../../store/store.ts';
import type { ProfileSessionManager } from './profileSessions.ts';

/** The §2.3 shape: exactly the public fields of a stored profile. */
export function toProfile(row: ProfileRow): Profile {
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    provider_profile_id: row.provider_profile_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** "Profile 2026-11-21 14:03" in local time: what a person would call a profile they did not name. */
export function defaultProfileName(at: Date): string {
  const pad = (value: number): string => String(value).padStart(2, '0');
  return `Profile ${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

/** §4.3: browser profiles of an organization; their login sessions live in the ProfileSessionManager. */
export class ProfileService {
  readonly sessions: ProfileSessionManager;
  readonly #store: Store;
  readonly #runtime: BrowserRuntime;
  readonly #clock: Clock;

  constructor(store: Store, runtime: BrowserRuntime, sessions: ProfileSessionManager, clock: Clock = systemClock) {
    this.#store = store;
    this.#runtime = runtime;
    this.sessions = sessions;
    this.#clock = clock;
  }

  /** The organization's profiles, oldest first. */
  list(orgId: string): Profile[] {
    return this.#store.profiles.list(orgId).map(toProfile);
  }

  /** Creates a profile (or takes `profile_id`) and opens a login session on it. */
  async openSession(orgId: string, request: ProfileCreateRequest, baseUrl: string): Promise<ProfileSessionCreated> {
    const existing =
      request.profile_id === undefined ? undefined : this.#store.profiles.getForOrg(orgId, request.profile_id);
    if (request.profile_id !== undefined && !existing) throw new NotFoundError(messages.profileNotFound);
    const profile = existing ?? this.#insert(orgId, request.name);
    try {
      const session = await this.sessions.open(profile, {
        timeoutMinutes: request.timeout_minutes,
        useProxy: request.use_proxy,
        startUrl: request.start_url,
        baseUrl,
      });
      return { profile_id: profile.id, name: profile.name, live_url: session.liveUrl, session_id: session.sessionId };
    } catch (error) {
      // A profile that never got its first session would be an empty shell nobody asked for.
      if (!existing) await this.#remove(profile.id).catch(() => undefined);
      throw error;
    }
  }

  /** Deletes the profile and its saved state; 409 while a login session or a job has it open. */
  async delete(orgId: string, profileId: string): Promise<void> {
    if (!this.#store.profiles.getForOrg(orgId, profileId)) throw new NotFoundError(messages.profileNotFound);
    if (this.sessions.isOpen(profileId) || this.#store.jobs.profileInUse(profileId)) {
      throw new ConflictError(messages.profileInUse(profileId));
    }
    await this.#remove(profileId);
  }

  #insert(orgId: string, name: string | undefined): ProfileRow {
    const now = this.#clock.now();
    const id = newId();
    const row: ProfileRow = {
      id,
      org_id: orgId,
      name: name ?? defaultProfileName(now),
      provider_profile_id: `local:${id}`,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    this.#store.profiles.insert(row);
    return row;
  }

  // The folder goes first: it refuses (409) while any browser holds the profile, and then the row must stay.
  async #remove(profileId: string): Promise<void> {
    await this.#runtime.deleteProfileFolder(profileId);
    this.#store.profiles.delete(profileId);
  }
}

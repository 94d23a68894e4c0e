import { systemClock, type Clock } from '../../base/clock.ts';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../base/errors.ts';
import { newId } from '../../base/ids.ts';
import { silentLogger, type Logger, type SecretRedactor } from '../../base/logger.ts';
import type { AgentCredential, AgentQuestion } from '../../agent/agentTypes.ts';
import { AgentFailure } from '../../agent/agentTypes.ts';
import { totpCode } from '../../agent/model/secretValues.ts';
import {
  credentialMessages,
  type Credential,
  type CredentialCreateRequest,
  type CredentialList,
  type PhoneNumber,
  type PhoneNumberCreateRequest,
  type PhoneNumberList,
  type VerificationCodeRequest,
  type VerificationCodeResponse,
} from '../../contract/credential.ts';
import { SecretsUnavailableError, type SecretStore } from '../../secrets/index.ts';
import type { CredentialRow } from '../../store/credentials.ts';
import type { OAuthRepository } from '../../store/oauth.ts';
import type { Store } from '../../store/store.ts';
import { codeFromMessage } from './codeText.ts';
import { CODE_WAIT_MS, CodeWaiter, type ReceivedCode } from './codeWaiter.ts';
import { PushedCodes } from './pushedCodes.ts';

/** The keychain names of a credential's secrets; SQLite never holds the values. */
export const credentialSecretName = {
  password: (id: string) => `credential/${id}/password`,
  totp: (id: string) => `credential/${id}/totp`,
} as const;

/** Who acts: the account key's user in its workspace. */
export interface CredentialActor {
  userId: string;
  workspaceId: string;
}

/** What a job run lends its credential: how to ask a human, whether it may, and when to stop. */
export interface CredentialJobHooks {
  humanInTheLoop: boolean;
  signal: AbortSignal;
  ask(question: AgentQuestion): Promise<string>;
  log(line: string): void;
}

export interface CredentialServiceDeps {
  store: Store;
  secrets: () => Promise<SecretStore>;
  /** Learns every secret value this service handles, so logs, events and results never show it. */
  redactor: SecretRedactor;
  clock?: Clock;
  logger?: Logger;
  /** How long a job waits for a pushed code before it asks (default 60 s). */
  codeWaitMs?: number;
}

function toCredential(row: CredentialRow): Credential {
  return {
    id: row.id,
    user_id: row.created_by,
    service_name: row.service_name,
    username_or_email: row.username_or_email,
    service_url: row.service_url,
    has_password: row.has_password === 1,
    has_totp: row.has_totp === 1,
    has_gmail_oauth: row.gmail_oauth_account_id !== null,
    has_phone_number: row.phone_number_id !== null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Credentials of a workspace (local-service.md §5.4): metadata in SQLite, secrets in the keychain, codes for waiting jobs. */
export class CredentialService {
  readonly #deps: CredentialServiceDeps;
  readonly #clock: Clock;
  readonly #logger: Logger;
  /** Connected accounts, to check a credential's gmail_oauth_account_id is one of its creator's. */
  readonly #oauth: OAuthRepository;
  /** Codes pushed with POST /public/verification-codes. */
  readonly pushedCodes: PushedCodes;
  /** Where jobs wait for codes; register more sources here (see CodeWaiter). */
  readonly codeWaiter: CodeWaiter;

  constructor(deps: CredentialServiceDeps) {
    this.#deps = deps;
    this.#clock = deps.clock ?? systemClock;
    this.#logger = deps.logger ?? silentLogger;
    this.#oauth = deps.store.oauth;
    this.pushedCodes = new PushedCodes(this.#clock);
    this.codeWaiter = new CodeWaiter([this.pushedCodes], this.#clock);
  }

  /** Stores the secrets first and the metadata last, so a failed keychain write leaves nothing behind. */
  async create(actor: CredentialActor, body: CredentialCreateRequest): Promise<Credential> {
    // Links are checked before anything is written: a mail account of the caller (connected accounts are
    // the user's alone), a phone number of the workspace; another's reads as not found.
    if (
      body.gmail_oauth_account_id !== undefined &&
      this.#oauth.getAccount(body.gmail_oauth_account_id)?.user_id !== actor.userId
    ) {
      throw new NotFoundError(credentialMessages.connectedAccountNotFound);
    }
    if (
      body.phone_number_id !== undefined &&
      !this.#deps.store.credentials.getPhoneNumberForWorkspace(actor.workspaceId, body.phone_number_id)
    ) {
      throw new NotFoundError(credentialMessages.phoneNumberNotFound);
    }
    const id = newId();
    const secrets: Array<[string, string]> = [];
    if (body.password !== undefined) secrets.push([credentialSecretName.password(id), body.password]);
    if (body.totp_secret !== undefined) secrets.push([credentialSecretName.totp(id), body.totp_secret]);
    for (const [, value] of secrets) this.#deps.redactor.add(value);
    const written: string[] = [];
    try {
      const store = await this.#deps.secrets();
      for (const [name, value] of secrets) {
        await store.set(name, value);
        written.push(name);
      }
      const now = this.#clock.now().toISOString();
      const row: CredentialRow = {
        id,
        workspace_id: actor.workspaceId,
        created_by: actor.userId,
        service_name: body.service_name,
        username_or_email: body.username_or_email ?? null,
        service_url: body.service_url ?? null,
        has_password: body.password !== undefined ? 1 : 0,
        has_totp: body.totp_secret !== undefined ? 1 : 0,
        gmail_oauth_account_id: body.gmail_oauth_account_id ?? null,
        phone_number_id: body.phone_number_id ?? null,
        created_at: now,
        updated_at: now,
      };
      this.#deps.store.credentials.insert(row);
      return toCredential(row);
    } catch (error) {
      await this.#forget(written);
      this.#logger.error('credential not created', { error: String(error) });
      throw new AppError(error instanceof SecretsUnavailableError ? 503 : 500, credentialMessages.createFailed, {
        cause: error,
      });
    }
  }

  async #forget(names: string[]): Promise<void> {
    const store = await this.#deps.secrets().catch(() => undefined);
    for (const name of names) await store?.delete(name).catch(() => false);
  }

  /** The workspace's credentials as list items (interface §2.6). */
  list(workspaceId: string): CredentialList {
    try {
      return this.#deps.store.credentials.list(workspaceId).map((row) => ({
        id: row.id,
        user_id: row.created_by,
        service_name: row.service_name,
        ...(row.username_or_email !== null && { username_or_email: row.username_or_email }),
      }));
    } catch (error) {
      this.#logger.error('credentials not listed', { error: String(error) });
      throw new AppError(500, credentialMessages.listFailed, { cause: error });
    }
  }

  #row(workspaceId: string, id: string): CredentialRow {
    const row = this.#deps.store.credentials.getForWorkspace(workspaceId, id);
    if (!row) throw new NotFoundError(credentialMessages.notFound);
    return row;
  }

  get(workspaceId: string, id: string): Credential {
    return toCredential(this.#row(workspaceId, id));
  }

  /** Removes the secrets, then the metadata; a keychain that refuses keeps the credential so the delete can be retried. */
  async delete(workspaceId: string, id: string): Promise<void> {
    this.#row(workspaceId, id);
    const store = await this.#deps.secrets();
    await store.delete(credentialSecretName.password(id));
    await store.delete(credentialSecretName.totp(id));
    this.#deps.store.credentials.delete(id);
  }

  addPhoneNumber(actor: CredentialActor, body: PhoneNumberCreateRequest): PhoneNumber {
    const row = {
      id: newId(),
      workspace_id: actor.workspaceId,
      created_by: actor.userId,
      phone_number: body.phone_number,
      label: body.label ?? null,
      created_at: this.#clock.now().toISOString(),
    };
    this.#deps.store.credentials.insertPhoneNumber(row);
    return { id: row.id, phone_number: row.phone_number, label: row.label, created_at: row.created_at };
  }

  /** The workspace's phone numbers, oldest first. */
  listPhoneNumbers(workspaceId: string): PhoneNumberList {
    return this.#deps.store.credentials
      .listPhoneNumbers(workspaceId)
      .map((row) => ({ id: row.id, phone_number: row.phone_number, label: row.label, created_at: row.created_at }));
  }

  /**
   * Deletes a phone number of the workspace. One that credentials still receive codes on is refused
   * (409, naming them): unlinking them silently would leave a job waiting for an SMS that never comes.
   */
  deletePhoneNumber(workspaceId: string, id: string): void {
    if (!this.#deps.store.credentials.getPhoneNumberForWorkspace(workspaceId, id))
      throw new NotFoundError(credentialMessages.phoneNumberNotFound);
    const { deleted, usedBy } = this.#deps.store.credentials.deletePhoneNumberIfUnused(id);
    if (usedBy.length > 0) throw new ConflictError(credentialMessages.phoneNumberInUse(usedBy));
    if (!deleted) throw new NotFoundError(credentialMessages.phoneNumberNotFound);
  }

  /** POST /public/verification-codes: a code (or one read from a message) for the jobs of this workspace waiting on it. */
  pushCode(workspaceId: string, body: VerificationCodeRequest): VerificationCodeResponse {
    if (body.credential_id !== undefined) this.#row(workspaceId, body.credential_id);
    if (
      body.phone_number_id !== undefined &&
      !this.#deps.store.credentials.getPhoneNumberForWorkspace(workspaceId, body.phone_number_id)
    ) {
      throw new NotFoundError(credentialMessages.phoneNumberNotFound);
    }
    const code = body.code ?? codeFromMessage(body.message ?? '');
    if (code === undefined) throw new ValidationError(credentialMessages.noCodeInMessage);
    this.#deps.redactor.add(code);
    const delivered = this.pushedCodes.push(
      workspaceId,
      {
        ...(body.credential_id !== undefined && { credentialId: body.credential_id }),
        ...(body.phone_number_id !== undefined && { phoneNumberId: body.phone_number_id }),
        ...(body.email !== undefined && { email: body.email }),
      },
      code,
    );
    return { accepted: true, delivered_to_jobs: delivered };
  }

  /** A credential a job of `orgId` may use (one of the org's workspaces'), else 404 `Credential not found`. */
  requireForOrg(orgId: string, id: string): CredentialRow {
    const row = this.#deps.store.credentials.getForOrg(orgId, id);
    if (!row) throw new NotFoundError(credentialMessages.notFound);
    return row;
  }

  /** The credential as a job's agent uses it; undefined when it was deleted since the job started. */
  forJob(orgId: string, id: string, hooks: CredentialJobHooks): AgentCredential | undefined {
    const row = this.#deps.store.credentials.getForOrg(orgId, id);
    if (!row) return undefined;
    // A code sent because of a login submitted just now may arrive before the job starts waiting: codes count from the last secret read.
    let lastUsedAt: string | undefined;
    const secret = async (name: string): Promise<string | undefined> => {
      if (name !== credentialSecretName.password(id) && name !== credentialSecretName.totp(id)) return undefined;
      lastUsedAt = this.#clock.now().toISOString();
      const value = await (await this.#deps.secrets()).get(name);
      if (value !== undefined) this.#deps.redactor.add(value);
      return value;
    };
    const required = async (name: string, what: string): Promise<string> => {
      const value = await secret(name);
      if (value === undefined) throw new AgentFailure(`credential '${row.service_name}' has no ${what} stored`);
      return value;
    };
    return {
      id,
      serviceName: row.service_name,
      username: row.username_or_email,
      origin: row.service_url !== null ? new URL(row.service_url).origin : null,
      hasPassword: row.has_password === 1,
      hasTotp: row.has_totp === 1,
      receivesCodes: row.phone_number_id !== null || row.gmail_oauth_account_id !== null,
      secret,
      password: () => required(credentialSecretName.password(id), 'password'),
      totp: async () => {
        const code = totpCode(
          await required(credentialSecretName.totp(id), 'TOTP secret'),
          this.#clock.now().getTime(),
        );
        this.#deps.redactor.add(code);
        return code;
      },
      receivedCode: async () => {
        const got = await this.#received(row, hooks, lastUsedAt, false);
        if (typeof got !== 'string') throw new AgentFailure('a sign-in link arrived where a code was expected');
        return got;
      },
      receivedCodeOrLink: () => this.#received(row, hooks, lastUsedAt, true),
    };
  }

  /** A code from any source (or, with `links`, a mailed sign-in link of the credential's site); then a HITL question; else a failure saying why. */
  async #received(
    row: CredentialRow,
    hooks: CredentialJobHooks,
    sinceIso: string | undefined,
    links: boolean,
  ): Promise<ReceivedCode> {
    const since = sinceIso ?? this.#clock.now().toISOString();
    const waitMs = this.#deps.codeWaitMs ?? CODE_WAIT_MS;
    hooks.log(
      `waiting up to ${Math.round(waitMs / 1000)} s for a verification code for '${row.service_name}' (${this.codeWaiter.sourceNames.join(', ')})`,
    );
    const code = await this.codeWaiter.wait(row, since, hooks.signal, waitMs, { links });
    if (typeof code === 'object') {
      // The link signs in as the user: as secret as a code, in every log, event and result.
      this.#deps.redactor.add(code.link);
      const token = new URL(code.link).search.slice(1);
      if (token.length >= 4) this.#deps.redactor.add(token);
      hooks.log('sign-in link received');
      return code;
    }
    if (code !== undefined) {
      this.#deps.redactor.add(code);
      hooks.log('verification code received');
      return code;
    }
    const why = `No verification code for '${row.service_name}' arrived within ${Math.round(waitMs / 1000)} s (push one with POST /public/verification-codes)`;
    if (!hooks.humanInTheLoop) throw new AgentFailure(`${why}; human_in_the_loop is off, so nobody could be asked`);
    const answer = await hooks.ask({
      question: `Enter the verification code sent for ${row.service_name}`,
      options: [],
      message: why,
      secret: true,
    });
    const typed = answer.trim();
    const asCode = /^[A-Za-z0-9-]{4,12}$/.test(typed) ? typed : codeFromMessage(typed);
    if (asCode === undefined) throw new AgentFailure(`the answer to the verification code question holds no code`);
    this.#deps.redactor.add(asCode);
    return asCode;
  }
}

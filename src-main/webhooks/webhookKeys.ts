import { ConflictError, NotFoundError } from '../base/errors.ts';
import { newSecretToken } from '../base/ids.ts';
import type { SecretStore } from '../secrets/secretStore.ts';
import type { Store } from '../store/store.ts';

const secretName = (orgId: string): string => `webhook/${orgId}`;

/** Every signing secret starts with this; it is also all of the secret the database keeps (`prefix`). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** The org-level signing key (§5.5): generated in one place, shown once, kept in the keychain. */
export class WebhookKeyService {
  readonly #store: Store;
  readonly #secrets: () => Promise<SecretStore>;

  /** `secrets` opens the store on first use, so the keychain is only asked when a key is touched. */
  constructor(store: Store, secrets: () => Promise<SecretStore>) {
    this.#store = store;
    this.#secrets = secrets;
  }

  /** Generates (or rotates) the org's signing key; the secret is returned this once. */
  async generate(orgId: string): Promise<{ org_id: string; secret: string }> {
    if (!this.#store.principals.getOrg(orgId)) throw new NotFoundError(`Organization '${orgId}' not found`);
    const secret = newSecretToken(WEBHOOK_SECRET_PREFIX);
    await (await this.#secrets()).set(secretName(orgId), secret);
    // The fixed type prefix only: no character of the secret itself is stored outside the keychain.
    this.#store.webhooks.setKey(orgId, WEBHOOK_SECRET_PREFIX);
    return { org_id: orgId, secret };
  }

  /** Revokes the org's signing key: no webhooks are signed (or sent) until a new one is generated. */
  async revoke(orgId: string): Promise<{ revoked: true }> {
    if (!this.#store.principals.getOrg(orgId)) throw new NotFoundError(`Organization '${orgId}' not found`);
    if (!this.#store.webhooks.deleteKey(orgId))
      throw new ConflictError(`Organization '${orgId}' has no webhook signing key`);
    await (await this.#secrets()).delete(secretName(orgId));
    return { revoked: true };
  }

  status(orgId: string): { org_id: string; configured: boolean; prefix: string | null; created_at: string | null } {
    const info = this.#store.webhooks.keyInfo(orgId);
    return {
      org_id: orgId,
      configured: info !== undefined,
      prefix: info?.prefix ?? null,
      created_at: info?.created_at ?? null,
    };
  }

  hasKey(orgId: string): boolean {
    return this.#store.webhooks.keyInfo(orgId) !== undefined;
  }

  /** The secret to sign with now, or undefined once revoked. */
  async secret(orgId: string): Promise<string | undefined> {
    return this.hasKey(orgId) ? (await this.#secrets()).get(secretName(orgId)) : undefined;
  }
}

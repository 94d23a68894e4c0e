import type { Migration } from '../migration.ts';

/**
 * Webhook signing keys kept `whsec_` plus 6 random characters of the secret as their prefix: six
 * characters of a secret are a head start for anyone who reads the database. Only the fixed `whsec_`
 * stays (what the console shows before its `…`); the secret itself is in the keychain.
 */
export const migration0018: Migration = {
  version: 18,
  name: 'webhook_key_prefix',
  sql: `UPDATE webhook_keys SET prefix = 'whsec_';`,
};

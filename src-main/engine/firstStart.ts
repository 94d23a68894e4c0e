import type { Store } from '../store/store.ts';

export interface SeededKeys {
  orgId: string;
  orgApiKey: string;
  userId: string;
  workspaceId: string;
  accountApiKey: string;
}

export const DEFAULT_ORG_ID = 'default';
export const DEFAULT_USER_ID = 'local';
export const DEFAULT_WORKSPACE_ID = 'default';

/** On an empty data dir: org `default`, user `local` in workspace `default`, one key each. */
export function seedFirstStart(store: Store): SeededKeys | undefined {
  return store.db.transaction(() => {
    if (store.principals.countOrgs() > 0) return undefined;
    store.principals.createOrg(DEFAULT_ORG_ID, 'Default organization');
    store.principals.ensureUser(DEFAULT_USER_ID);
    store.principals.ensureWorkspace(DEFAULT_WORKSPACE_ID);
    store.principals.addMember(DEFAULT_WORKSPACE_ID, DEFAULT_USER_ID);
    return {
      orgId: DEFAULT_ORG_ID,
      orgApiKey: store.apiKeys.issueOrgKey(DEFAULT_ORG_ID).apiKey,
      userId: DEFAULT_USER_ID,
      workspaceId: DEFAULT_WORKSPACE_ID,
      accountApiKey: store.apiKeys.issueAccountKey(DEFAULT_USER_ID, DEFAULT_WORKSPACE_ID).apiKey,
    };
  })();
}

import { InternalError, isAppError } from '../../base/errors.ts';
import { oauthMessages } from '../../contract/oauth.ts';
import type { OperationsTagged } from '../../contract/operations.ts';
import type { ConnectedAccountService } from '../../engine/oauth/connectedAccounts.ts';
import type { Handlers } from '../operationTable.ts';
import { oauthCallbackHandler } from './oauthCallback.ts';

/** Interface §4.7 and local-service.md §5.4: the caller's connected accounts, and the loopback `/oauth/callback`. */
export function connectedAccountHandlers(
  accounts: ConnectedAccountService,
): Handlers<OperationsTagged<'connected-accounts'>> {
  return {
    connectAccount: ({ principal, body }) =>
      accounts.start({ userId: principal.userId, workspaceId: principal.workspaceId }, body),
    listConnectedAccounts: ({ principal }) => {
      try {
        return accounts.list(principal.userId);
      } catch (error) {
        if (isAppError(error)) throw error;
        throw new InternalError(oauthMessages.listFailed, { cause: error });
      }
    },
    deleteConnectedAccount: ({ principal, params }) => accounts.remove(principal.userId, params.account_id),
    completeOAuth: oauthCallbackHandler(accounts),
  };
}

import { InternalError, isAppError } from '../../base/errors.ts';
import { ConnectedAccountList, ConnectedAccountParams, ConnectRequest, ConnectResponse, oauthMessages } from '../../contract/oauth.ts';
import type { ConnectedAccountService } from '../../engine/oauth/connectedAccounts.ts';
import type { RouteTable } from '../routeTable.ts';

/** Interface §4.7 and local-service.md §5.4: the caller's connected accounts. */
export function addConnectedAccountRoutes(routes: RouteTable, accounts: ConnectedAccountService): void {
  routes.add({
    method: 'POST', url: '/public/connected-accounts', tag: 'connected-accounts', auth: 'account',
    summary: 'Start connecting an account: open authorization_url in a browser; the provider returns to /oauth/callback',
    body: ConnectRequest, response: ConnectResponse,
    handler: ({ principal, body }) => accounts.start({ userId: principal.userId, workspaceId: principal.workspaceId }, body),
  });
  routes.add({
    method: 'GET', url: '/public/connected-accounts', tag: 'connected-accounts', auth: 'account',
    summary: "The caller's own connected accounts (never their tokens)", response: ConnectedAccountList,
    handler: ({ principal }) => {
      try {
        return accounts.list(principal.userId);
      } catch (error) {
        if (isAppError(error)) throw error;
        throw new InternalError(oauthMessages.listFailed, { cause: error });
      }
    },
  });
  routes.add({
    method: 'DELETE', url: '/public/connected-accounts/:account_id', tag: 'connected-accounts', auth: 'account',
    summary: 'Forget a connected account and its tokens', params: ConnectedAccountParams, status: 204,
    handler: ({ principal, params }) => accounts.remove(principal.userId, params.account_id),
  });
}

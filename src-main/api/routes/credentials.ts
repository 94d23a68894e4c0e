import {
  Credential, CredentialCreateRequest, CredentialList, CredentialParams, PhoneNumber, PhoneNumberCreateRequest, PhoneNumberList, PhoneNumberParams, VerificationCodeRequest, VerificationCodeResponse,
} from '../../contract/credential.ts';
import type { CredentialService } from '../../engine/credentials/credentialService.ts';
import type { RouteTable } from '../routeTable.ts';

/** Interface §4.7 and local-service.md §5.4: credentials, phone numbers and pushed verification codes of the account key's workspace. */
export function addCredentialRoutes(routes: RouteTable, credentials: CredentialService): void {
  routes.add({
    method: 'POST', url: '/public/credentials', tag: 'credentials', summary: 'Store a credential: secrets go to the keychain, metadata to the database', auth: 'account',
    body: CredentialCreateRequest, response: Credential,
    handler: ({ principal, body }) => credentials.create({ userId: principal.userId, workspaceId: principal.workspaceId }, body),
  });
  routes.add({
    method: 'GET', url: '/public/credentials', tag: 'credentials', summary: "List the workspace's credentials (never a secret)", auth: 'account',
    response: CredentialList,
    handler: ({ principal }) => credentials.list(principal.workspaceId),
  });
  routes.add({
    method: 'GET', url: '/public/credentials/:credential_id', tag: 'credentials', summary: "Get a credential's metadata", auth: 'account',
    params: CredentialParams, response: Credential,
    handler: ({ principal, params }) => credentials.get(principal.workspaceId, params.credential_id),
  });
  routes.add({
    method: 'DELETE', url: '/public/credentials/:credential_id', tag: 'credentials', summary: 'Delete a credential and its secrets', auth: 'account',
    params: CredentialParams, status: 204,
    handler: async ({ principal, params }) => {
      await credentials.delete(principal.workspaceId, params.credential_id);
    },
  });
  routes.add({
    method: 'POST', url: '/public/phone-numbers', tag: 'credentials', summary: 'Add a phone number that receives SMS codes (a credential\'s phone_number_id)', auth: 'account',
    body: PhoneNumberCreateRequest, response: PhoneNumber,
    handler: ({ principal, body }) => credentials.addPhoneNumber({ userId: principal.userId, workspaceId: principal.workspaceId }, body),
  });
  routes.add({
    method: 'GET', url: '/public/phone-numbers', tag: 'credentials', summary: "List the workspace's phone numbers", auth: 'account',
    response: PhoneNumberList,
    handler: ({ principal }) => credentials.listPhoneNumbers(principal.workspaceId),
  });
  routes.add({
    method: 'DELETE', url: '/public/phone-numbers/:phone_number_id', tag: 'credentials', auth: 'account',
    summary: 'Delete a phone number; 409 naming the credentials that still receive codes on it',
    params: PhoneNumberParams, status: 204,
    handler: ({ principal, params }) => {
      credentials.deletePhoneNumber(principal.workspaceId, params.phone_number_id);
    },
  });
  routes.add({
    method: 'POST', url: '/public/verification-codes', tag: 'credentials', summary: 'Push a verification code (or a whole SMS/mail text) to the job waiting for it', auth: 'account',
    body: VerificationCodeRequest, response: VerificationCodeResponse,
    handler: ({ principal, body }) => credentials.pushCode(principal.workspaceId, body),
  });
}

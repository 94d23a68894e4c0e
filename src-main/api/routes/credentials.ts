import type { OperationsTagged } from '../../contract/operations.ts';
import type { CredentialService } from '../../engine/credentials/credentialService.ts';
import type { Handlers } from '../operationTable.ts';

/** Interface §4.7 and local-service.md §5.4: credentials, phone numbers and pushed verification codes of the account key's workspace. */
export function credentialHandlers(credentials: CredentialService): Handlers<OperationsTagged<'credentials'>> {
  return {
    createCredential: ({ principal, body }) =>
      credentials.create({ userId: principal.userId, workspaceId: principal.workspaceId }, body),
    listCredentials: ({ principal }) => credentials.list(principal.workspaceId),
    getCredential: ({ principal, params }) => credentials.get(principal.workspaceId, params.credential_id),
    deleteCredential: async ({ principal, params }) => {
      await credentials.delete(principal.workspaceId, params.credential_id);
    },
    createPhoneNumber: ({ principal, body }) =>
      credentials.addPhoneNumber({ userId: principal.userId, workspaceId: principal.workspaceId }, body),
    listPhoneNumbers: ({ principal }) => credentials.listPhoneNumbers(principal.workspaceId),
    deletePhoneNumber: ({ principal, params }) => {
      credentials.deletePhoneNumber(principal.workspaceId, params.phone_number_id);
    },
    pushVerificationCode: ({ principal, body }) => credentials.pushCode(principal.workspaceId, body),
  };
}

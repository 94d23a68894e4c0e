import { ConflictError, NotFoundError } from '../../base/errors.ts';
import { consoleMessages } from '../../contract/console.ts';

/** 404: no organization has this id. */
export class OrgNotFoundError extends NotFoundError {
  constructor(orgId: string) {
    super(consoleMessages.orgNotFound(orgId));
  }
}

/** 409: an organization with this id exists already. */
export class OrgExistsError extends ConflictError {
  constructor(orgId: string) {
    super(`Organization '${orgId}' already exists`);
  }
}

/** 404: no API key has this id (or, asked within an org, none of that org's keys does). */
export class ApiKeyNotFoundError extends NotFoundError {
  constructor() {
    super(consoleMessages.keyNotFound);
  }
}

/** 409: the key was revoked before; revoking is not repeated silently, so a typo'd id is noticed. */
export class ApiKeyAlreadyRevokedError extends ConflictError {
  constructor(keyId: string) {
    super(`Key '${keyId}' is already revoked`);
  }
}

/** 404: no workspace has this id. */
export class WorkspaceNotFoundError extends NotFoundError {
  constructor(workspaceId: string) {
    super(`Workspace '${workspaceId}' not found`);
  }
}

/** 409: the workspace exists already and belongs to another organization. */
export class WorkspaceInOtherOrgError extends ConflictError {
  constructor(workspaceId: string, orgId: string) {
    super(`Workspace '${workspaceId}' belongs to organization '${orgId}'`);
  }
}

/** 404: no user has this id. */
export class UserNotFoundError extends NotFoundError {
  constructor(userId: string) {
    super(`User '${userId}' not found`);
  }
}

/** 404: the user exists but is not in that workspace. */
export class NotAMemberError extends NotFoundError {
  constructor(workspaceId: string, userId: string) {
    super(`User '${userId}' is not a member of workspace '${workspaceId}'`);
  }
}

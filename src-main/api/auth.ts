import type { FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthorizedError } from '../base/errors.ts';
import { messages } from '../contract/messages.ts';
import type { ApiKeyPrincipal, ApiKeyRepository } from '../store/apiKeys.ts';

export type AuthMode = 'none' | 'org' | 'account';

export type OrgPrincipal = Extract<ApiKeyPrincipal, { kind: 'org' }>;
export type AccountPrincipal = Extract<ApiKeyPrincipal, { kind: 'account' }>;

/** Resolves `X-API-Key` to its principal, or 401 `Invalid API key`. */
export function authenticate(request: FastifyRequest, apiKeys: ApiKeyRepository): ApiKeyPrincipal {
  const header = request.headers['x-api-key'];
  const key = Array.isArray(header) ? header[0] : header;
  if (!key) throw new UnauthorizedError(messages.invalidApiKey);
  const principal = apiKeys.authenticate(key.trim());
  if (!principal) throw new UnauthorizedError(messages.invalidApiKey);
  return principal;
}

/** An org key for exactly `orgId`; any other valid key is 403 and learns nothing about that org. */
export function requireOrg(principal: ApiKeyPrincipal, orgId: string): OrgPrincipal {
  if (principal.kind !== 'org') throw new ForbiddenError(messages.orgKeyRequired);
  if (principal.orgId !== orgId) throw new ForbiddenError(messages.wrongOrg(orgId));
  return principal;
}

/** An account key (bound to one user in one workspace). */
export function requireAccount(principal: ApiKeyPrincipal): AccountPrincipal {
  if (principal.kind !== 'account') throw new ForbiddenError(messages.accountKeyRequired);
  return principal;
}

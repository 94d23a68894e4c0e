import type { FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../base/errors.ts';
import { CONSOLE_TOKEN_HEADER, consoleMessages } from '../contract/console.ts';
import { messages } from '../contract/messages.ts';
import type { ApiKeyPrincipal, ApiKeyRepository } from '../store/apiKeys.ts';
import { firstHeader, keyHashFor } from './presentedKey.ts';

/** How the operator console authenticates: one random token per start, sent as `X-Console-Token`. */
export interface ConsoleAuth {
  readonly token: string;
  orgExists(orgId: string): boolean;
  /**
   * The account the console acts as on `/public` (account-key) routes: the operator's default user in
   * the default workspace, with its membership read on every request.
   */
  operatorAccount(): Omit<AccountPrincipal, 'keyId'>;
}

/** 403 text when the console token is used on `/public` but the operator's default workspace membership is gone. */
export const operatorAccountMissing = (userId: string, workspaceId: string): string =>
  `The console acts on /public routes as user '${userId}' of workspace '${workspaceId}', and that user is not a member of it; use an account key`;

/** The console's principal: the local operator, not bound to any org. */
export interface ConsolePrincipal {
  kind: 'console';
}

export type OrgPrincipal = Extract<ApiKeyPrincipal, { kind: 'org' }>;
export type AccountPrincipal = Extract<ApiKeyPrincipal, { kind: 'account' }>;

/** Resolves `X-API-Key` to its principal, or 401 `Invalid API key`. */
export function authenticate(request: FastifyRequest, apiKeys: ApiKeyRepository): ApiKeyPrincipal {
  const key = firstHeader(request, 'x-api-key');
  if (!key) throw new UnauthorizedError(messages.invalidApiKey);
  const principal = apiKeys.authenticateHash(keyHashFor(request, key));
  if (!principal) throw new UnauthorizedError(messages.invalidApiKey);
  return principal;
}

/** An org key for exactly `orgId`; any other valid key is 403 and learns nothing about that org. */
export function requireOrg(principal: ApiKeyPrincipal, orgId: string): OrgPrincipal {
  if (principal.kind !== 'org') throw new ForbiddenError(messages.orgKeyRequired);
  if (principal.orgId !== orgId) throw new ForbiddenError(messages.wrongOrg(orgId));
  return principal;
}

/**
 * An account key (bound to one user in one workspace) whose user is still a member of that workspace:
 * membership is read with the key on every request, so `workspace remove-member` takes effect at once.
 */
export function requireAccount(principal: ApiKeyPrincipal, membershipCheckedByRoute = false): AccountPrincipal {
  if (principal.kind !== 'account') throw new ForbiddenError(messages.accountKeyRequired);
  if (!principal.member && !membershipCheckedByRoute) throw new ForbiddenError(messages.notAMember);
  return principal;
}

function presentedConsoleToken(request: FastifyRequest): string | undefined {
  const header = request.headers[CONSOLE_TOKEN_HEADER];
  return Array.isArray(header) ? header[0] : header;
}

/** Whether the request carries a console token at all (then it is judged as the console, never as a key). */
export function hasConsoleToken(request: FastifyRequest): boolean {
  return presentedConsoleToken(request) !== undefined;
}

/** The console token, compared in constant time; 401 `Invalid console token` otherwise. */
export function requireConsole(request: FastifyRequest, auth: ConsoleAuth | undefined): ConsolePrincipal {
  const presented = Buffer.from(presentedConsoleToken(request)?.trim() ?? '');
  const expected = Buffer.from(auth?.token ?? '');
  if (expected.length === 0 || presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
    throw new UnauthorizedError(consoleMessages.invalidConsoleToken);
  }
  return { kind: 'console' };
}

/** The console acting on an org's routes: the operator may act for any org that exists. */
export function consoleAsOrg(request: FastifyRequest, auth: ConsoleAuth | undefined, orgId: string): OrgPrincipal {
  requireConsole(request, auth);
  if (!auth?.orgExists(orgId)) throw new NotFoundError(consoleMessages.orgNotFound(orgId));
  return { kind: 'org', keyId: 'console', orgId };
}

/**
 * The console acting on account-key (`/public`) routes: always as the operator's default account (user
 * `local` in workspace `default`), never another workspace; scripts use account keys for the others.
 */
export function consoleAsAccount(request: FastifyRequest, auth: ConsoleAuth | undefined): AccountPrincipal {
  requireConsole(request, auth);
  // requireConsole has thrown unless auth is set.
  const account = (auth as ConsoleAuth).operatorAccount();
  if (!account.member) throw new ForbiddenError(operatorAccountMissing(account.userId, account.workspaceId));
  return { ...account, keyId: 'console' };
}

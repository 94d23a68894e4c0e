import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  OAuth2Server,
  type MutableRedirectUri,
  type MutableResponse,
  type MutableToken,
  type TokenRequestIncomingMessage,
} from 'oauth2-mock-server';

/**
 * A real OAuth 2 authorization server for tests: oauth2-mock-server (which checks an S256
 * code_verifier against the challenge whenever one is sent), made strict where a real provider is:
 * the code grant REQUIRES a verifier, a code works once and only with its redirect_uri and client id,
 * refresh tokens rotate (the old one is dead the moment a new one is issued), a revoked grant answers
 * invalid_grant, and userinfo answers only a live access token.
 */
export interface TestProvider {
  url: string;
  authorizeUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
  /** Token requests by grant type, in order. */
  readonly tokenRequests: Record<string, string>[];
  /** Refresh requests answered with new tokens. */
  refreshCount(): number;
  /** Every access and refresh token issued so far (for "never stored in SQLite" checks). */
  issuedTokens(): string[];
  /** Whether an access token was issued and not revoked (what a resource server such as Gmail accepts). */
  isLiveAccessToken(token: string): boolean;
  /** Lifetime (s) of the access tokens issued from now on. */
  setExpiresIn(seconds: number): void;
  /** The user's next decision at the authorize step: allow (a code) or deny (error=access_denied). */
  setDecision(decision: 'allow' | 'deny'): void;
  /** The user revokes the grant at the provider: every refresh token dies. */
  revokeAll(): void;
  stop(): Promise<void>;
}

interface Issued {
  redirectUri: string;
  clientId: string;
  scope: string;
}

export async function startTestProvider(options: {
  clientId: string;
  clientSecret?: string;
  email: string;
}): Promise<TestProvider> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  const url = server.issuer.url ?? '';
  const codes = new Map<string, Issued>();
  const liveRefresh = new Set<string>();
  const liveAccess = new Set<string>();
  const issued: string[] = [];
  const tokenRequests: Record<string, string>[] = [];
  let refreshes = 0;
  let expiresIn = 3600;
  let decision: 'allow' | 'deny' = 'allow';

  server.service.on('beforeAuthorizeRedirect', (redirect: MutableRedirectUri, req: IncomingMessage) => {
    const query = new URL(req.url ?? '/', url).searchParams;
    const code = redirect.url.searchParams.get('code');
    if (decision === 'deny' || query.get('code_challenge_method') !== 'S256' || !query.get('code_challenge')) {
      redirect.url.searchParams.delete('code');
      redirect.url.searchParams.set('error', decision === 'deny' ? 'access_denied' : 'invalid_request');
      return;
    }
    if (code)
      codes.set(code, {
        redirectUri: query.get('redirect_uri') ?? '',
        clientId: query.get('client_id') ?? '',
        scope: query.get('scope') ?? '',
      });
  });

  // Every token unique (the mock signs the same claims within one second into the same JWT otherwise).
  server.service.on('beforeTokenSigning', (token: MutableToken) => {
    token.payload.jti = randomUUID();
  });

  const refuse = (response: MutableResponse, error: string): void => {
    response.statusCode = 400;
    response.body = { error, error_description: `refused by the test provider: ${error}` };
  };

  server.service.on('beforeResponse', (response: MutableResponse, req: TokenRequestIncomingMessage) => {
    const body = req.body as unknown as Record<string, string>;
    tokenRequests.push({ ...body });
    if (
      body.client_id !== options.clientId ||
      (options.clientSecret !== undefined && body.client_secret !== options.clientSecret)
    )
      return refuse(response, 'invalid_client');
    const answer = response.body as Record<string, unknown>;
    if (body.grant_type === 'authorization_code') {
      // oauth2-mock-server already refused a wrong verifier (400); here: no verifier at all, a reused or foreign code.
      const code = codes.get(body.code ?? '');
      codes.delete(body.code ?? '');
      if (!body.code_verifier || !code || code.redirectUri !== body.redirect_uri || code.clientId !== body.client_id)
        return refuse(response, 'invalid_grant');
      // The scopes granted are the ones asked at the authorize step.
      answer.scope = code.scope;
    } else if (body.grant_type === 'refresh_token') {
      if (!liveRefresh.delete(body.refresh_token ?? '')) return refuse(response, 'invalid_grant');
      refreshes += 1;
      delete answer.scope;
    } else {
      return refuse(response, 'unsupported_grant_type');
    }
    answer.expires_in = expiresIn;
    liveRefresh.add(String(answer.refresh_token));
    liveAccess.add(String(answer.access_token));
    issued.push(String(answer.refresh_token), String(answer.access_token));
  });

  server.service.on('beforeUserinfo', (response: MutableResponse, req: IncomingMessage) => {
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!liveAccess.has(token)) {
      response.statusCode = 401;
      response.body = { error: 'invalid_token' };
      return;
    }
    response.body = { sub: 'user-123', email: options.email, name: 'Ada Lovelace' };
  });

  return {
    url,
    authorizeUrl: `${url}/authorize`,
    tokenUrl: `${url}/token`,
    userinfoUrl: `${url}/userinfo`,
    tokenRequests,
    refreshCount: () => refreshes,
    issuedTokens: () => [...issued],
    isLiveAccessToken: (token) => liveAccess.has(token),
    setExpiresIn: (seconds) => {
      expiresIn = seconds;
    },
    setDecision: (next) => {
      decision = next;
    },
    revokeAll: () => {
      liveRefresh.clear();
      liveAccess.clear();
    },
    stop: () => server.stop(),
  };
}

/** Plays the browser at the authorize step: returns the loopback callback URL the provider redirects to. */
export async function authorize(authorizationUrl: string): Promise<URL> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (response.status !== 302 || !location)
    throw new Error(`authorize answered ${response.status} without a redirect: ${await response.text()}`);
  return new URL(location);
}

/** The engine side of a connect, as the browser would drive it: start, authorize at the provider, come back to the callback. */
export async function connectThrough(
  accounts: {
    start(
      actor: { userId: string; workspaceId: string },
      request: { oauth_app_id: string; scopes?: string[] },
    ): Promise<{ authorization_url: string; state: string }>;
    complete(query: Record<string, string>): Promise<{ status: number; title: string; message: string }>;
  },
  appId: string,
  userId = 'local',
): Promise<{ status: number; title: string; message: string }> {
  const { authorization_url: authorizationUrl } = await accounts.start(
    { userId, workspaceId: 'default' },
    { oauth_app_id: appId },
  );
  const back = await authorize(authorizationUrl);
  return accounts.complete(Object.fromEntries(back.searchParams));
}

import type { IncomingMessage } from 'node:http';
import { expect } from 'vitest';
import type { TestService } from '../../helpers/service.ts';
import { startGmailStandIn, type GmailStandIn } from './gmailStandIn.ts';
import { authorize, startTestProvider, type TestProvider } from './oauthProvider.ts';

/**
 * Google for the mailed-code tests: the OAuth test provider playing Google (client `google-client`, account
 * ada@gmail.example) and the Gmail stand-in answering its live access tokens. PORTICO_GMAIL_API_BASE points at the
 * stand-in from here until `stop()` (hosts read it once at start: start the service after this).
 */
export interface GoogleMail {
  provider: TestProvider;
  gmail: GmailStandIn;
  /** Registers Google as OAuth app `google` of `svc` and connects the local user's Google account through the loopback callback. */
  connect(
    svc: TestService,
  ): Promise<{ authorizationUrl: string; account: { id: string; oauth_user_name: string } | undefined }>;
  /** Gives PORTICO_GMAIL_API_BASE its previous value back and stops the stand-in and the provider. */
  stop(): Promise<void>;
}

export async function startGoogleMail(clientSecret: string): Promise<GoogleMail> {
  const provider = await startTestProvider({ clientId: 'google-client', clientSecret, email: 'ada@gmail.example' });
  const gmail = await startGmailStandIn((token) => provider.isLiveAccessToken(token));
  const previousBase = process.env.PORTICO_GMAIL_API_BASE;
  process.env.PORTICO_GMAIL_API_BASE = gmail.baseUrl;
  return {
    provider,
    gmail,
    connect: async (svc) => {
      const app = await svc.api('/admin/oauth-apps', {
        method: 'POST',
        key: null,
        headers: { 'x-console-token': svc.consoleToken },
        json: {
          id: 'google',
          client_id: 'google-client',
          client_secret: clientSecret,
          authorize_url: provider.authorizeUrl,
          token_url: provider.tokenUrl,
          userinfo_url: provider.userinfoUrl,
        },
      });
      expect(app.status).toBe(201);
      const started = (await (
        await svc.api('/public/connected-accounts', {
          method: 'POST',
          key: svc.accountKey,
          json: { oauth_app_id: 'google' },
        })
      ).json()) as { authorization_url: string };
      expect((await fetch(await authorize(started.authorization_url))).status).toBe(200);
      const [account] = (await (await svc.api('/public/connected-accounts', { key: svc.accountKey })).json()) as {
        id: string;
        oauth_user_name: string;
      }[];
      return { authorizationUrl: started.authorization_url, account };
    },
    stop: async () => {
      if (previousBase === undefined) delete process.env.PORTICO_GMAIL_API_BASE;
      else process.env.PORTICO_GMAIL_API_BASE = previousBase;
      await gmail.stop();
      await provider.stop();
    },
  };
}

/** A bare page of the test site. */
export const page = (title: string, body: string): string =>
  `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;
/** A 303 to `location`. */
export const see = (location: string, headers: Record<string, string> = {}) => ({
  status: 303,
  headers: { location, ...headers },
  body: '',
});

/** The site's `/login`: email and password, then a 303 to `next` for the right pair, "Wrong password" otherwise. */
export const passwordLogin = (user: string, password: string, next: string) => (req: IncomingMessage, body: string) => {
  if (req.method !== 'POST') {
    return {
      body: page(
        'Sign in',
        `<form method="post" action="/login"><label>Email <input type="email" name="email" autocomplete="username"></label>
            <label>Password <input type="password" name="pw"></label><button type="submit">Sign in</button></form>`,
      ),
    };
  }
  const f = new URLSearchParams(body);
  return f.get('email') === user && f.get('pw') === password
    ? see(next)
    : { body: page('Sign in', '<p>Wrong password</p>') };
};

/** What a well-known provider's app needs besides its client id (local-service.md §5.4 presets). */
export interface OAuthPreset {
  authorize_url: string;
  token_url: string;
  userinfo_url: string;
  scopes: string[];
  /** Whether the provider refuses a token request without the client secret (Google: even for desktop apps). */
  needsClientSecret: boolean;
  /** Extra authorization parameters: ask for a refresh token. */
  authorizeParams: Record<string, string>;
}

export const OAUTH_PRESETS: Readonly<Record<string, OAuthPreset>> = {
  google: {
    authorize_url: 'https://accounts.google.com/o/oauth2/v2/auth',
    token_url: 'https://oauth2.googleapis.com/token',
    userinfo_url: 'https://openidconnect.googleapis.com/v1/userinfo',
    scopes: ['openid', 'email', 'https://www.googleapis.com/auth/gmail.readonly'],
    needsClientSecret: true,
    authorizeParams: { access_type: 'offline', prompt: 'consent' },
  },
  microsoft: {
    authorize_url: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
    token_url: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
    userinfo_url: 'https://graph.microsoft.com/oidc/userinfo',
    scopes: ['openid', 'email', 'offline_access', 'https://graph.microsoft.com/Mail.Read'],
    needsClientSecret: false,
    authorizeParams: {},
  },
};

export function presetFor(appId: string): OAuthPreset | undefined {
  return Object.hasOwn(OAUTH_PRESETS, appId) ? OAUTH_PRESETS[appId] : undefined;
}

import type { AuthConfig } from '@realtime-config/protocol/rest';

const STORAGE_KEY = 'rc-pkce';

interface PendingSignIn {
  readonly state: string;
  readonly verifier: string;
  readonly returnUrl: string;
}

function randomText(bytes: number): string {
  const data = crypto.getRandomValues(new Uint8Array(bytes));
  return base64Url(data);
}

function base64Url(data: Uint8Array): string {
  let text = '';
  for (const byte of data) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function challengeOf(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64Url(new Uint8Array(digest));
}

export function redirectUri(): string {
  return `${window.location.origin}/sign-in/callback`;
}

/**
 * Starts the Authorization Code flow with PKCE at the Jwt provider's authorize URL. Only the one-time
 * verifier and state wait in sessionStorage for the redirect back; the token will live in memory.
 */
export async function startPkceSignIn(jwt: NonNullable<AuthConfig['jwt']>, returnUrl: string): Promise<void> {
  if (!jwt.authorizeUrl || !jwt.tokenUrl || !jwt.clientId) {
    throw new Error('The Jwt provider needs Authentication:Jwt:AuthorizeUrl, TokenUrl and ClientId for the console.');
  }
  const pending: PendingSignIn = { state: randomText(16), verifier: randomText(32), returnUrl };
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(pending));
  const url = new URL(jwt.authorizeUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', jwt.clientId);
  url.searchParams.set('redirect_uri', redirectUri());
  url.searchParams.set('scope', jwt.scopes ?? 'openid');
  url.searchParams.set('state', pending.state);
  url.searchParams.set('code_challenge', await challengeOf(pending.verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  window.location.assign(url.href);
}

/** Exchanges the code the provider returned for an access token; answers it and where to go next. */
export async function finishPkceSignIn(
  jwt: NonNullable<AuthConfig['jwt']>,
  params: URLSearchParams,
): Promise<{ token: string; returnUrl: string }> {
  const stored = sessionStorage.getItem(STORAGE_KEY);
  sessionStorage.removeItem(STORAGE_KEY);
  const pending = stored ? (JSON.parse(stored) as PendingSignIn) : null;
  const error = params.get('error');
  if (error) throw new Error(`The identity provider refused the sign-in: ${params.get('error_description') ?? error}`);
  const code = params.get('code');
  if (!pending || !code || params.get('state') !== pending.state) {
    throw new Error('This sign-in answer does not belong to a sign-in started here. Sign in again.');
  }
  const response = await fetch(jwt.tokenUrl ?? '', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri(),
      client_id: jwt.clientId ?? '',
      code_verifier: pending.verifier,
    }),
  });
  const body = (await response.json().catch(() => ({}))) as { access_token?: string; error_description?: string };
  if (!response.ok || !body.access_token) {
    throw new Error(`The token exchange failed: ${body.error_description ?? response.status}`);
  }
  return { token: body.access_token, returnUrl: pending.returnUrl };
}

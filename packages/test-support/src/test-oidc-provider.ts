/**
 * The OpenId provider's test identity provider, shared by openid-provider.test.ts and
 * provider-sign-in.ts: a real oidc-provider on a loopback port, and the browser steps through its
 * login and consent forms.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';
import type { Browser } from './cookie-browser.js';

export const OIDC_CLIENT_ID = 'realtime-config';
export const OIDC_CLIENT_SECRET = 'client-secret-for-tests-0123456789abcdef';

/** The claims of each account but `sub`, by account id (the `sub`). */
export type OidcAccounts = Readonly<Record<string, Record<string, unknown>>>;

/**
 * A real oidc-provider on a loopback port. The app reads its discovery document at start, but the
 * client's redirect URI is only known once the app listens: the HTTP server comes first, serving a
 * provider without clients; `registerClient` swaps in the same provider (same issuer and keys) with
 * the client.
 */
export class TestOidcProvider {
  private handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  private constructor(
    private readonly server: Server,
    private readonly jwk: JWK,
    private readonly accounts: OidcAccounts,
  ) {}

  static async start(accounts: OidcAccounts): Promise<TestOidcProvider> {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
    let idp: TestOidcProvider | null = null;
    const server = createServer((req, res) => idp?.handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    idp = new TestOidcProvider(server, jwk, accounts);
    idp.handler = idp.provider([]).callback();
    return idp;
  }

  get issuer(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  registerClient(appBaseUrl: string): void {
    const client = {
      client_id: OIDC_CLIENT_ID,
      client_secret: OIDC_CLIENT_SECRET,
      redirect_uris: [`${appBaseUrl}/auth/callback`],
      post_logout_redirect_uris: [`${appBaseUrl}/`],
      response_types: ['code'],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'client_secret_post',
    };
    this.handler = this.provider([client]).callback();
  }

  private provider(clients: Array<Record<string, unknown>>): Provider {
    const configuration: Configuration = {
      clients,
      jwks: { keys: [this.jwk] },
      cookies: { keys: ['cookie-key-for-tests'] },
      pkce: { required: () => true },
      claims: { openid: ['sub'], email: ['email'], profile: ['name'], groups: ['groups'] },
      features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
      findAccount: (_ctx, sub) => {
        const account = this.accounts[sub];
        return Promise.resolve(account ? { accountId: sub, claims: () => ({ sub, ...account }) } : undefined);
      },
    };
    return new Provider(this.issuer, configuration);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * From where the app's /auth/login redirected, drives the provider's login and consent forms as the
 * account until the provider redirects to the app's callback; returns that callback URL.
 */
export async function followToCallback(browser: Browser, app: string, start: string, account: string): Promise<string> {
  let next = start;
  for (let step = 0; step < 20; step += 1) {
    if (next.startsWith(`${app}/auth/callback`)) return next;
    const page = await browser.get(next);
    if (page.location) {
      next = page.location;
      continue;
    }
    const action = /<form[^>]*action="([^"]+)"/.exec(page.text)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(page.text)?.[1];
    if (page.status !== 200 || !action || !prompt) {
      throw new Error(`unexpected provider answer ${page.status} at ${next}: ${page.text.slice(0, 500)}`);
    }
    const form = new URLSearchParams({ prompt });
    if (prompt === 'login') {
      form.set('login', account);
      form.set('password', 'any password');
    }
    const posted = await browser.request('POST', new URL(action, next).href, form);
    if (!posted.location) throw new Error(`the ${prompt} form answered ${posted.status}: ${posted.text}`);
    next = posted.location;
  }
  throw new Error('the sign-in did not come back to the app');
}

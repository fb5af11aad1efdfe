import { allowInsecureRequests, discovery, type Configuration } from 'openid-client';
import type { OpenIdAuthConfig } from '../../../platform/config/app-config.js';
import type { AuthProvider } from '../providers/auth-provider.js';
import type { AuthProviderDependencies } from '../providers/provider-dependencies.js';
import { resolveIdentity } from '../identity/identity.js';
import { openIdRoutes } from './openid-routes.js';

/**
 * OpenID Connect (Authorization Code Flow with PKCE) through openid-client. The claims received at
 * sign-in live in the server-side session; every request resolves them again through
 * `resolveIdentity`, so a change of Authorization:Policies applies without signing in again.
 */
export function createOpenIdProvider(deps: AuthProviderDependencies): AuthProvider {
  const settings = deps.config.authentication.openId;
  if (!settings) throw new Error('Authentication:OpenId is required when Authentication:Provider is OpenId.');
  let client: Configuration | null = null;
  const clientOf = (): Configuration => {
    if (!client) throw new Error('The OpenId provider has not been started.');
    return client;
  };

  return {
    name: 'OpenId',
    authenticate(request) {
      const claims = request.session.claims;
      return Promise.resolve(claims ? resolveIdentity('openid', claims, deps.claimSettings) : null);
    },
    async registerRoutes(app) {
      await app.register(openIdRoutes, { client: clientOf, scope: settings.scope });
    },
    async start() {
      client = await discoverClient(settings);
      deps.logger.info({ issuer: client.serverMetadata().issuer }, 'OpenID Connect provider discovered');
    },
    close: () => Promise.resolve(),
  };
}

/** Reads the discovery document once at start; without it no sign-in can work, so the start stops. */
async function discoverClient(settings: OpenIdAuthConfig): Promise<Configuration> {
  if (settings.responseType !== 'code') {
    throw new Error(
      `Authentication:OpenId:ResponseType ${settings.responseType} is not supported; use code (Authorization Code Flow).`,
    );
  }
  try {
    return await discovery(
      new URL(settings.authority),
      settings.clientId,
      settings.clientSecret,
      undefined,
      settings.requireHttpsMetadata ? undefined : { execute: [allowInsecureRequests] },
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Authentication:OpenId:Authority ${settings.authority}: the OpenID Connect discovery document ` +
        `({Authority}/.well-known/openid-configuration) could not be used: ${reason}`,
      { cause: error },
    );
  }
}

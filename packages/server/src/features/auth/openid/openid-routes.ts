import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import {
  authorizationCodeGrant,
  buildAuthorizationUrl,
  buildEndSessionUrl,
  calculatePKCECodeChallenge,
  fetchUserInfo,
  randomNonce,
  randomPKCECodeVerifier,
  randomState,
  type Configuration,
} from 'openid-client';
import { Type } from 'typebox';
import { AppError } from '../../../platform/errors.js';
import { problems } from '../../../platform/http/schemas.js';
import type { Claims } from '../identity/identity.js';
import { safeReturnUrl } from '../sessions/return-url.js';

/** A sign-in started here and not yet finished: what the callback must check against. */
interface PendingOpenIdLogin {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  readonly redirectUri: string;
  readonly returnUrl: string;
}

declare module 'fastify' {
  interface Session {
    /** OpenId: sign-ins in progress, by state (one per browser tab), single use. */
    openIdLogins?: PendingOpenIdLogin[];
    /** OpenId: the ID token of the signed-in user, sent as id_token_hint at logout. */
    openIdIdToken?: string;
  }
}

/** Several tabs may start a sign-in at once; older ones beyond this are forgotten. */
const MAX_PENDING_LOGINS = 5;

/** Protocol claims that say nothing about the user and need not be kept in the session. */
const PROTOCOL_CLAIMS = new Set(['nonce', 'at_hash', 'c_hash', 's_hash', 'sid', 'azp', 'auth_time', 'iat', 'jti']);

export interface OpenIdRoutesOptions {
  /** The client configuration from discovery; only available once the provider has started. */
  client: () => Configuration;
  scope: readonly string[];
}

function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

function signInFailed(): AppError {
  return AppError.unauthenticated('The sign-in could not be completed. Start it again from /auth/login.');
}

/**
 * GET /auth/login, GET /auth/callback and GET /auth/logout (docs/rest-api.md, OpenId). Each writes
 * the session, so a follower forwards them to the primary (`writes: true`, docs/regions.md): the
 * callback's one-time code must be redeemed there, once.
 */
export const openIdRoutes: FastifyPluginAsyncTypebox<OpenIdRoutesOptions> = async (app, options) => {
  const tags = ['auth'];

  app.get(
    '/auth/login',
    {
      config: { policy: 'public', writes: true },
      schema: {
        tags,
        summary: 'Sign in with the OpenID Connect provider (redirects there)',
        querystring: Type.Object({ returnUrl: Type.Optional(Type.String()) }),
      },
    },
    async (request, reply) => {
      const client = options.client();
      const codeVerifier = randomPKCECodeVerifier();
      const pending: PendingOpenIdLogin = {
        state: randomState(),
        nonce: randomNonce(),
        codeVerifier,
        redirectUri: `${originOf(request)}/auth/callback`,
        returnUrl: safeReturnUrl(request.query.returnUrl),
      };
      request.session.openIdLogins = [...(request.session.openIdLogins ?? []), pending].slice(-MAX_PENDING_LOGINS);
      const url = buildAuthorizationUrl(client, {
        redirect_uri: pending.redirectUri,
        response_type: 'code',
        scope: options.scope.join(' '),
        state: pending.state,
        nonce: pending.nonce,
        code_challenge: await calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
      });
      return reply.header('cache-control', 'no-store').redirect(url.href);
    },
  );

  app.get(
    '/auth/callback',
    {
      config: { policy: 'public', writes: true },
      schema: { tags, summary: 'Return from the OpenID Connect provider', response: problems(401) },
    },
    async (request, reply) => {
      const client = options.client();
      const query = new URL(request.url, 'http://callback.invalid').searchParams;
      const state = query.get('state');
      const pendingLogins = request.session.openIdLogins ?? [];
      const pending = pendingLogins.find((login) => login.state === state);
      if (!pending) {
        request.log.info('OpenID sign-in refused: the state matches no sign-in started in this session');
        throw signInFailed();
      }
      // Single use, whatever the outcome: a second callback with the same state is refused.
      request.session.openIdLogins = pendingLogins.filter((login) => login !== pending);

      let claims: Claims;
      let idToken: string | undefined;
      try {
        const tokens = await authorizationCodeGrant(client, new URL(`${pending.redirectUri}?${query.toString()}`), {
          pkceCodeVerifier: pending.codeVerifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        });
        const idTokenClaims = tokens.claims();
        if (!idTokenClaims) throw new Error('the token response has no ID token');
        idToken = tokens.id_token;
        let userInfo: Claims = {};
        if (client.serverMetadata().userinfo_endpoint) {
          userInfo = await fetchUserInfo(client, tokens.access_token, idTokenClaims.sub);
        }
        // The ID token is signed by the provider, so its subject and issuer win over userinfo.
        claims = Object.fromEntries(
          Object.entries({ ...userInfo, ...idTokenClaims }).filter(([type]) => !PROTOCOL_CLAIMS.has(type)),
        );
      } catch (error) {
        const err = error as { message?: string; code?: string; error?: string };
        request.log.warn({ reason: err.message, code: err.code, error: err.error }, 'OpenID sign-in failed');
        throw signInFailed();
      }

      // A fresh session id at every sign-in: no session fixation.
      await request.session.regenerate();
      request.session.claims = claims;
      if (idToken) request.session.openIdIdToken = idToken;
      return reply.header('cache-control', 'no-store').redirect(pending.returnUrl);
    },
  );

  app.get(
    '/auth/logout',
    {
      config: { policy: 'public', writes: true },
      schema: { tags, summary: 'Sign out here and, when it supports it, at the OpenID Connect provider' },
    },
    async (request, reply) => {
      const client = options.client();
      const idToken = request.session.openIdIdToken;
      await request.session.destroy();
      void reply.header('cache-control', 'no-store');
      if (!client.serverMetadata().end_session_endpoint) return reply.redirect('/');
      const url = buildEndSessionUrl(client, {
        post_logout_redirect_uri: `${originOf(request)}/`,
        ...(idToken ? { id_token_hint: idToken } : {}),
      });
      return reply.redirect(url.href);
    },
  );
};

import fastifyCookie from '@fastify/cookie';
import fastifySession from '@fastify/session';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import {
  requireSignedIn,
  type Caller,
  type Identity,
  type PolicyName,
  type ServiceAction,
} from '../../../core/index.js';
import { AppError } from '../../../platform/errors.js';
import { isUuid } from '../../../platform/ids.js';
import { isCrossOrigin } from '../../../platform/http/same-origin.js';
import { bearerTokenOf, isOwnCredential, type BearerCredentials } from '../credentials/bearer-credentials.js';
import type { Claims } from '../identity/identity.js';
import { refuseWhileDefaultPassword } from '../local/default-password.js';

/**
 * Who may call a route: anyone (`public`), any authenticated caller, API keys included
 * (`authenticated`), a signed-in person (`user`), a person with a policy (`canAll`, `canChange`), or
 * whoever may do `service` to the service named by the route's `serviceId` parameter (the rule of
 * core's requireServiceAccess: roles, API key scopes).
 */
export type RoutePolicy = 'public' | 'authenticated' | 'user' | PolicyName | { readonly service: ServiceAction };

declare module 'fastify' {
  interface Session {
    /** Local provider: the signed-in username (roles are read fresh on every request). */
    localUser?: string;
    /** Local provider: createdAt of that user, so a later account re-created under the same name is not opened. */
    localUserCreatedAt?: number;
    /** Local provider: when the password was set at sign-in; a later change ends this session. */
    localUserPasswordChangedAt?: number;
    /** Cookie providers with external identities: the claims received at sign-in. */
    claims?: Claims;
    /** When the session was last renewed (ms since the epoch); it is renewed a few times per lifetime. */
    renewedAt?: number;
  }
  interface FastifyRequest {
    /** Who is calling; null when nobody authenticated. Resolved only for routes that need it. */
    caller: Caller | null;
    /** The person calling, when the caller is one (not an API key). */
    identity: Identity | null;
  }
  interface FastifyContextConfig {
    /** Who may call the route. Every route under /api must say. */
    policy?: RoutePolicy;
    /** The route takes posts from other sites by design (an identity provider's SAML form post). */
    crossOrigin?: boolean;
    /**
     * The route changes credentials or access: only a person signed in with a session or the
     * provider's token may call it, never a personal access token or an API key (core's requireSignedIn).
     */
    changesAccess?: boolean;
  }
}

/** Turns a request into an identity: a session, a bearer token… one per provider. */
export interface Authenticator {
  authenticate(request: FastifyRequest): Promise<Identity | null>;
}

export interface AuthPluginOptions {
  authenticator: Authenticator;
  /** Signs and checks the session cookie. */
  signer: {
    sign(value: string): string;
    unsign(input: string): { valid: boolean; renew: boolean; value: string | null };
  };
  sessionStore: fastifySession.SessionStore;
  idleTimeoutMs: number;
  /** API keys and personal access tokens (and the provider's bearer tokens). */
  bearer: BearerCredentials;
  /** The access rule for `{ service }` routes. */
  serviceAccess: (caller: Caller, serviceId: string, action: ServiceAction) => Promise<void>;
  /** True on a follower (docs/regions.md): its standby takes no writes, so no session is renewed there. */
  readOnly: () => boolean;
}

export const SESSION_COOKIE = 'rc_session';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Sessions, identity resolution and the policy check. Runs in onRequest, before the body is parsed
 * or validated, so an anonymous caller gets 401 whatever it sent.
 */
export const authPlugin = fp<AuthPluginOptions>(async (app: FastifyInstance, options) => {
  await app.register(fastifyCookie);
  await app.register(fastifySession, {
    secret: options.signer,
    cookieName: SESSION_COOKIE,
    store: options.sessionStore,
    saveUninitialized: false,
    // Sliding expiry without a write per request: see the renewal hook below.
    rolling: false,
    cookie: { httpOnly: true, sameSite: 'lax', secure: 'auto', path: '/', maxAge: options.idleTimeoutMs },
  });

  app.decorateRequest('caller', null);
  app.decorateRequest('identity', null);

  // A signed-in session is renewed (stored again, its cookie sent again with a later expiry) once a
  // tenth of its idle lifetime has passed since the last renewal, not on every request: most
  // requests neither write the session nor send a cookie. Revocation stays immediate, because the
  // session row and the account are read on every request (ADR 0003). A follower renews nothing:
  // the session is renewed by the requests that reach the primary, or expires.
  const renewAfterMs = options.idleTimeoutMs / 10;
  app.addHook('onRequest', async (request) => {
    if (options.readOnly()) return;
    const session = request.session as typeof request.session | undefined;
    if (!session?.sessionId || !(session.localUser || session.claims)) return;
    const now = Date.now();
    if (now - (session.renewedAt ?? 0) < renewAfterMs) return;
    session.renewedAt = now;
    session.touch();
  });

  app.addHook('onRoute', (route) => {
    const policy = (route.config as { policy?: RoutePolicy } | undefined)?.policy;
    // The OpenAPI document shows public routes without the session requirement.
    if (policy === 'public' && route.schema) route.schema = { ...route.schema, security: [] };
    if (
      route.url.startsWith('/api/') &&
      !policy &&
      !route.url.startsWith('/api/docs') &&
      route.url !== '/api/openapi.json'
    ) {
      throw new Error(`Route ${route.method.toString()} ${route.url} does not declare its policy`);
    }
  });

  // A page of another origin can make the browser send a form or a text/plain body with the user's
  // cookie; SameSite=Lax does not stop another port of the same host. Such requests change nothing.
  // A bearer token cannot be attached by a foreign page (it would need CORS, which is never granted).
  app.addHook('onRequest', async (request) => {
    if (SAFE_METHODS.has(request.method) || request.headers.authorization !== undefined) return;
    if (request.routeOptions.config.crossOrigin) return;
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    if (isCrossOrigin({ origin: header('origin'), fetchSite: header('sec-fetch-site'), host: request.host })) {
      throw AppError.forbidden('Requests from another origin may not change anything with the session cookie.');
    }
  });

  /** An own credential (API key, personal token) first, else the provider's (session, Jwt). */
  const callerOfRequest = async (request: FastifyRequest): Promise<Caller | null> => {
    const token = bearerTokenOf(request.headers.authorization);
    if (token !== undefined && isOwnCredential(token)) {
      const resolved = await options.bearer.resolve(token);
      if ('refused' in resolved) throw AppError.unauthenticated(resolved.refused);
      return resolved.caller;
    }
    const identity = await options.authenticator.authenticate(request);
    return identity ? { kind: 'user', identity } : null;
  };

  app.addHook('onRequest', async (request) => {
    const policy = request.routeOptions.config.policy ?? 'public';
    if (policy === 'public') return;
    const caller = await callerOfRequest(request);
    if (!caller) throw AppError.unauthenticated();
    request.caller = caller;
    if (caller.kind === 'user') {
      request.identity = caller.identity;
      refuseWhileDefaultPassword(request.routeOptions.url ?? '', caller.identity);
    }
    if (request.routeOptions.config.changesAccess) requireSignedIn(caller);
    if (policy === 'authenticated') return;
    if (typeof policy === 'object') {
      // A malformed id is left to validation (400); a well-formed one is checked before the body is read.
      const serviceId = (request.params as { serviceId?: unknown } | undefined)?.serviceId;
      if (typeof serviceId === 'string' && isUuid(serviceId))
        await options.serviceAccess(caller, serviceId, policy.service);
      return;
    }
    if (caller.kind !== 'user') {
      throw AppError.forbidden('This needs a person signed in: an API key acts only on its own service.');
    }
    if (policy !== 'user' && !caller.identity.policies.includes(policy)) {
      throw AppError.forbidden(
        policy === 'canAll'
          ? 'Only admins may do this (it needs the canAll policy).'
          : `Your role does not allow this (it needs the ${policy} policy).`,
      );
    }
  });
});

/** The person calling, on a route whose policy guaranteed one (`user` or a policy name). */
export function identityOf(request: FastifyRequest): Identity {
  if (!request.identity) throw AppError.unauthenticated();
  return request.identity;
}

/** The caller of a route whose policy guaranteed one. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw AppError.unauthenticated();
  return request.caller;
}

/**
 * Reads the identity of a session cookie outside Fastify's request cycle, for the web console's
 * gRPC-Web and Connect calls (same origin, so the browser sends the cookie). Uses @fastify/session's
 * own decryption (signature and store), then the provider's usual check.
 */
export function createSessionIdentityReader(
  app: FastifyInstance,
  authenticator: Authenticator,
): (cookieHeader: string | undefined) => Promise<Identity | null> {
  return async (cookieHeader) => {
    if (!cookieHeader) return null;
    const signed = app.parseCookie(cookieHeader)[SESSION_COOKIE];
    if (!signed) return null;
    const request = {} as FastifyRequest;
    await new Promise<void>((resolve, reject) =>
      app.decryptSession(signed, request, (error?: unknown) => (error ? reject(toError(error)) : resolve())),
    );
    const identity = await authenticator.authenticate(request);
    // The console's gRPC calls: nothing but the password change until the default is gone.
    if (identity) refuseWhileDefaultPassword(null, identity);
    return identity;
  };
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

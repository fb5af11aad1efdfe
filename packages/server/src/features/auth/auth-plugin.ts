import fastifyCookie from '@fastify/cookie';
import fastifySession from '@fastify/session';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../platform/errors.js';
import type { Claims, Identity, PolicyName } from './identity.js';

export type RoutePolicy = 'public' | 'authenticated' | PolicyName;

declare module 'fastify' {
  interface Session {
    /** Local provider: the signed-in username (roles are read fresh on every request). */
    localUser?: string;
    /** Local provider: createdAt of that user, so a later account re-created under the same name is not opened. */
    localUserCreatedAt?: number;
    /** Cookie providers with external identities: the claims received at sign-in. */
    claims?: Claims;
  }
  interface FastifyRequest {
    /** Who is calling; null when not signed in. Resolved only for routes that need it. */
    identity: Identity | null;
  }
  interface FastifyContextConfig {
    /** Who may call the route. Every route under /api must say. */
    policy?: RoutePolicy;
  }
}

/** Turns a request into an identity: a session, a bearer token… one per provider. */
export interface Authenticator {
  authenticate(request: FastifyRequest): Promise<Identity | null>;
}

export interface AuthPluginOptions {
  authenticator: Authenticator;
  sessionSecret: string;
  sessionStore: fastifySession.SessionStore;
  idleTimeoutMs: number;
}

export const SESSION_COOKIE = 'rc_session';

/**
 * Sessions, identity resolution and the policy check. Runs in onRequest, before the body is parsed
 * or validated, so an anonymous caller gets 401 whatever it sent.
 */
export const authPlugin = fp<AuthPluginOptions>(async (app: FastifyInstance, options) => {
  await app.register(fastifyCookie);
  await app.register(fastifySession, {
    secret: options.sessionSecret,
    cookieName: SESSION_COOKIE,
    store: options.sessionStore,
    saveUninitialized: false,
    rolling: true,
    cookie: { httpOnly: true, sameSite: 'lax', secure: 'auto', path: '/', maxAge: options.idleTimeoutMs },
  });

  app.decorateRequest('identity', null);

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

  app.addHook('onRequest', async (request) => {
    const policy = request.routeOptions.config.policy ?? 'public';
    if (policy === 'public') return;
    request.identity = await options.authenticator.authenticate(request);
    if (!request.identity) throw AppError.unauthenticated();
    if (policy !== 'authenticated' && !request.identity.policies.includes(policy)) {
      throw AppError.forbidden(`This operation needs the ${policy} policy.`);
    }
  });
});

/** The identity of a request whose route policy guaranteed one. */
export function identityOf(request: FastifyRequest): Identity {
  if (!request.identity) throw AppError.unauthenticated();
  return request.identity;
}

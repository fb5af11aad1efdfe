import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Identity, InstanceRole } from '../../core/index.js';
import type { AuthenticationConfig } from '../../platform/config/app-config.js';
import { Nullable, problems } from '../../platform/http/schemas.js';
import { identityOf } from './sessions/auth-plugin.js';

export const MeSchema = Type.Object(
  {
    id: Type.String(),
    email: Nullable(Type.String()),
    name: Nullable(Type.String()),
    provider: Type.String(),
    roles: Type.Array(Type.String()),
    policies: Type.Array(Type.String()),
    permissions: Type.Array(Type.String(), { description: 'Equal to policies' }),
    passwordChangeRequired: Type.Boolean({
      description: 'True while a Local account still has a password it must change (the seeded default).',
    }),
  },
  { $id: 'Me' },
);

export function meOf(identity: Identity) {
  return {
    id: identity.id,
    email: identity.email,
    name: identity.name,
    provider: identity.provider,
    roles: [...identity.roles],
    policies: [...identity.policies],
    permissions: [...identity.policies],
    passwordChangeRequired: identity.passwordChangeRequired === true,
  };
}

const meRef = Type.Unsafe<ReturnType<typeof meOf>>({ $ref: 'Me#' });

export interface AuthRoutesOptions {
  authentication: AuthenticationConfig;
  /** Whether this instance is a follower (the console's read-only banner, docs/regions.md). */
  role: InstanceRole;
}

/** /auth/me, /api/auth/me and /auth/config: the same for every provider. */
export const authRoutes: FastifyPluginAsyncTypebox<AuthRoutesOptions> = async (app, options) => {
  const tags = ['auth'];

  for (const url of ['/auth/me', '/api/auth/me']) {
    app.get(
      url,
      {
        config: { policy: 'user' },
        schema: {
          tags,
          summary: 'The signed-in user with roles and policies',
          response: { 200: meRef, ...problems(401) },
        },
      },
      async (request) => meOf(identityOf(request)),
    );
  }

  app.get(
    '/auth/config',
    {
      config: { policy: 'public' },
      schema: {
        tags,
        summary: 'Sign-in settings for the web UI',
        response: {
          200: Type.Object({
            provider: Type.String(),
            jwt: Type.Optional(
              Type.Object({
                authorizeUrl: Nullable(Type.String()),
                tokenUrl: Nullable(Type.String()),
                clientId: Nullable(Type.String()),
                scopes: Nullable(Type.String()),
              }),
            ),
          }),
        },
      },
    },
    async () => {
      const { provider, jwt } = options.authentication;
      if (provider === 'Jwt' && jwt) {
        return {
          provider: 'jwt',
          jwt: { authorizeUrl: jwt.authorizeUrl, tokenUrl: jwt.tokenUrl, clientId: jwt.clientId, scopes: jwt.scopes },
        };
      }
      return { provider: provider.toLowerCase() };
    },
  );

  // The role of this instance, for the console's read-only banner: it changes when a follower's
  // standby is promoted, unlike the sign-in settings above (docs/regions.md).
  app.get(
    '/auth/instance',
    {
      config: { policy: 'public' },
      schema: {
        tags,
        summary: 'Whether this instance is a primary or a read-only follower of a PostgreSQL standby',
        response: {
          200: Type.Object({
            role: Type.Union([Type.Literal('primary'), Type.Literal('follower')]),
            primaryUrl: Nullable(
              Type.String({ description: 'Server:PrimaryUrl of a follower, where writes and sign-ins are forwarded' }),
            ),
          }),
        },
      },
    },
    async () => {
      const { role } = options;
      return role.follower
        ? { role: 'follower' as const, primaryUrl: role.primaryUrl }
        : { role: 'primary' as const, primaryUrl: null };
    },
  );
};

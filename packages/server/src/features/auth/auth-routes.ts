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
            // Set while this instance is a read-only follower of a PostgreSQL standby; null on a primary.
            follower: Nullable(
              Type.Object(
                {
                  primaryUrl: Nullable(
                    Type.String({ description: 'Server:PrimaryUrl, where writes and sign-ins are forwarded' }),
                  ),
                },
                { description: 'This instance is a read-only follower of a PostgreSQL standby (docs/regions.md)' },
              ),
            ),
          }),
        },
      },
    },
    async () => {
      const { provider, jwt } = options.authentication;
      const { role } = options;
      const follower = role.follower ? { primaryUrl: role.primaryUrl } : null;
      if (provider === 'Jwt' && jwt) {
        return {
          provider: 'jwt',
          jwt: { authorizeUrl: jwt.authorizeUrl, tokenUrl: jwt.tokenUrl, clientId: jwt.clientId, scopes: jwt.scopes },
          follower,
        };
      }
      return { provider: provider.toLowerCase(), follower };
    },
  );
};

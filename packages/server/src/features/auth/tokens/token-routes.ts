import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { isoToMicros, microsToIso } from '../../../platform/clock.js';
import { AppError } from '../../../platform/errors.js';
import { Nullable, problems, Timestamp, Uuid } from '../../../platform/http/schemas.js';
import { identityOf } from '../sessions/auth-plugin.js';
import type { PersonalTokens, PersonalTokenView } from './personal-tokens.js';

const tokenFields = {
  id: Uuid,
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the token, to tell tokens apart' }),
  expiresAt: Timestamp,
  createdAt: Timestamp,
};
const TokenSchema = Type.Object(
  { ...tokenFields, lastUsedAt: Nullable(Timestamp), revokedAt: Nullable(Timestamp) },
  { $id: 'PersonalToken' },
);
const tokenRef = Type.Unsafe<ReturnType<typeof tokenOf>>({ $ref: 'PersonalToken#' });
const CreatedTokenSchema = Type.Object({
  ...tokenFields,
  token: Type.String({
    description: 'The token itself (`rcp_…`), for `Authorization: Bearer`. Shown only in this answer; store it now.',
  }),
});

const isoOrNull = (us: number | null): string | null => (us === null ? null : microsToIso(us));
const tokenOf = (t: PersonalTokenView) => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  expiresAt: microsToIso(t.expiresAt),
  createdAt: microsToIso(t.createdAt),
  lastUsedAt: isoOrNull(t.lastUsedAt),
  revokedAt: isoOrNull(t.revokedAt),
});

/** A person's own access tokens: made, listed and revoked by their owner, with every provider. */
export const tokenRoutes: FastifyPluginAsyncTypebox<{ tokens: PersonalTokens; maxLifetimeDays: number }> = async (
  app,
  { tokens, maxLifetimeDays },
) => {
  app.addSchema(TokenSchema);
  const tags = ['tokens'];

  app.post(
    '/api/auth/tokens',
    {
      config: { policy: 'user', changesAccess: true },
      schema: {
        tags,
        summary: 'Create a personal access token; the token is shown only in this answer',
        description: `The token acts as you (your current role with the Local provider, the roles of this sign-in with the others) on every REST route and gRPC call, sent as \`Authorization: Bearer rcp_…\`. \`expiresAt\` null means the longest lifetime, ${maxLifetimeDays} days (Authentication:Tokens:MaxLifetimeDays); a later time is shortened to it. A personal access token or an API key cannot make tokens (403): that needs a signed-in session.`,
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 200, examples: ['deploy pipeline'] }),
          expiresAt: Type.Optional(Nullable(Timestamp)),
        }),
        response: { 201: CreatedTokenSchema, ...problems(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const { name, expiresAt } = request.body;
      const at = expiresAt === undefined || expiresAt === null ? null : isoToMicros(expiresAt);
      if (at === undefined)
        throw AppError.invalid('expiresAt is not a date and time.', { expiresAt: ['is not ISO 8601'] });
      const created = await tokens.create(identityOf(request), { name, expiresAt: at });
      const { lastUsedAt: _used, revokedAt: _revoked, ...shown } = tokenOf(created);
      return reply.code(201).send({ ...shown, token: created.token });
    },
  );

  app.get(
    '/api/auth/tokens',
    {
      config: { policy: 'user' },
      schema: {
        tags,
        summary: 'List your personal access tokens (never the tokens themselves), newest first',
        response: { 200: Type.Array(tokenRef), ...problems(401, 403) },
      },
    },
    async (request) => (await tokens.list(identityOf(request).id)).map(tokenOf),
  );

  app.delete(
    '/api/auth/tokens/:tokenId',
    {
      config: { policy: 'user', changesAccess: true },
      schema: {
        tags,
        summary: 'Revoke one of your tokens: calls with it, open streams included, are refused from now on',
        params: Type.Object({ tokenId: Uuid }),
        response: { 204: Type.Null(), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const identity = identityOf(request);
      await tokens.revoke(identity, identity.id, request.params.tokenId);
      return reply.code(204).send(null);
    },
  );

  // An admin ends a leaked token of anyone's, whatever the provider (the user id is the path's).
  const userParams = Type.Object({ username: Type.String({ minLength: 1, maxLength: 320 }) });
  app.get(
    '/api/users/:username/tokens',
    {
      config: { policy: 'canAll' },
      schema: {
        tags,
        summary: "List a user's personal access tokens (admins; every provider, the user's id in the path)",
        params: userParams,
        response: { 200: Type.Array(tokenRef), ...problems(400, 401, 403) },
      },
    },
    async (request) => (await tokens.list(request.params.username)).map(tokenOf),
  );

  app.delete(
    '/api/users/:username/tokens/:tokenId',
    {
      config: { policy: 'canAll', changesAccess: true },
      schema: {
        tags,
        summary:
          "Revoke a user's personal access token (admins): calls with it, open streams included, are refused from now on",
        params: Type.Object({ ...userParams.properties, tokenId: Uuid }),
        response: { 204: Type.Null(), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await tokens.revoke(identityOf(request), request.params.username, request.params.tokenId);
      return reply.code(204).send(null);
    },
  );
};

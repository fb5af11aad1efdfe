import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../../core/index.js';
import { microsToIso } from '../../../platform/clock.js';
import { Nullable, problems, Timestamp, Uuid } from '../../../platform/http/schemas.js';
import type { ApiKeys, ApiKeyView } from './api-keys.js';
import { identityOf } from '../sessions/auth-plugin.js';

const apiKeyFields = {
  id: Uuid,
  serviceId: Uuid,
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to tell keys apart' }),
  createdAt: Timestamp,
};

const ApiKeySchema = Type.Object(
  {
    ...apiKeyFields,
    createdBy: Nullable(Type.String()),
    lastUsedAt: Nullable(Timestamp),
    revokedAt: Nullable(Timestamp),
  },
  { $id: 'ApiKey' },
);
const apiKeyRef = Type.Unsafe<ReturnType<typeof apiKeyOf>>({ $ref: 'ApiKey#' });

const CreatedApiKeySchema = Type.Object({
  ...apiKeyFields,
  key: Type.String({ description: 'The key itself (`rck_…`). Shown only in this answer; store it now.' }),
});

const isoOrNull = (us: number | null): string | null => (us === null ? null : microsToIso(us));

function apiKeyOf(k: ApiKeyView) {
  return {
    id: k.id,
    serviceId: k.serviceId,
    name: k.name,
    prefix: k.prefix,
    createdAt: microsToIso(k.createdAt),
    createdBy: k.createdBy,
    lastUsedAt: isoOrNull(k.lastUsedAt),
    revokedAt: isoOrNull(k.revokedAt),
  };
}

/** API keys of a service, for gRPC clients when Grpc:RequireAuthentication is on. Admins only. */
export const apiKeyRoutes: FastifyPluginAsyncTypebox<{ apiKeys: ApiKeys }> = async (app, { apiKeys }) => {
  app.addSchema(ApiKeySchema);
  const tags = ['api keys'];
  const params = Type.Object({ serviceId: Uuid });

  app.get(
    '/api/services/:serviceId/apikeys',
    {
      config: { policy: 'canAll' },
      schema: {
        tags,
        summary: 'List the API keys of a service (never the keys themselves)',
        params,
        response: { 200: Type.Array(apiKeyRef), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => (await apiKeys.list(request.params.serviceId)).map(apiKeyOf),
  );

  app.post(
    '/api/services/:serviceId/apikeys',
    {
      config: { policy: 'canAll' },
      schema: {
        tags,
        summary: 'Create an API key for gRPC clients of the service; the key is shown only in this answer',
        params,
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 201: CreatedApiKeySchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const created = await apiKeys.create(actorOf(identityOf(request)), request.params.serviceId, request.body.name);
      const { createdBy: _by, lastUsedAt: _used, revokedAt: _revoked, ...shown } = apiKeyOf(created);
      return reply.code(201).send({ ...shown, key: created.key });
    },
  );

  app.delete(
    '/api/services/:serviceId/apikeys/:keyId',
    {
      config: { policy: 'canAll' },
      schema: {
        tags,
        summary: 'Revoke an API key: calls using it are refused from now on',
        params: Type.Object({ serviceId: Uuid, keyId: Uuid }),
        response: { 204: Type.Null(), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await apiKeys.revoke(actorOf(identityOf(request)), request.params.serviceId, request.params.keyId);
      return reply.code(204).send(null);
    },
  );
};

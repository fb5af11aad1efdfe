import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOfCaller, API_KEY_SCOPES, DEFAULT_API_KEY_SCOPES, requireReveal } from '../../../core/index.js';
import { microsToIso } from '../../../platform/clock.js';
import { Nullable, problems, Timestamp, Uuid } from '../../../platform/http/schemas.js';
import type { ApiKeys, ApiKeyView } from './api-keys.js';
import { callerOf } from '../sessions/auth-plugin.js';

const Scope = Type.Union(
  [Type.Literal('read'), Type.Literal('register'), Type.Literal('write'), Type.Literal('secrets')],
  {
    description:
      'read (GetConfig, StartSubscribe, IsVersionExists; REST reads and exports), register (CreateVersion), write (value sets, imports, restores, promotions), secrets (secret values in plaintext)',
  },
);

const apiKeyFields = {
  id: Uuid,
  serviceId: Uuid,
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to tell keys apart' }),
  scopes: Type.Array(Scope),
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
    scopes: [...k.scopes],
    createdAt: microsToIso(k.createdAt),
    createdBy: k.createdBy,
    lastUsedAt: isoOrNull(k.lastUsedAt),
    revokedAt: isoOrNull(k.revokedAt),
  };
}

/**
 * API keys of a service: machine credentials for its applications and pipelines, on gRPC and REST,
 * within their scopes. Managed by the service's owners (and canAll users).
 */
export const apiKeyRoutes: FastifyPluginAsyncTypebox<{ apiKeys: ApiKeys }> = async (app, { apiKeys }) => {
  app.addSchema(ApiKeySchema);
  const tags = ['api keys'];
  const params = Type.Object({ serviceId: Uuid });

  app.get(
    '/api/services/:serviceId/apikeys',
    {
      config: { policy: { service: 'manage' } },
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
      config: { policy: { service: 'manage' }, changesAccess: true },
      schema: {
        tags,
        summary: 'Create an API key of the service; the key is shown only in this answer',
        description:
          'Send it as `Authorization: Bearer rck_…` on gRPC and REST. It works only for this service and only within its scopes; a call outside them answers 403 (gRPC PERMISSION_DENIED). `scopes` defaults to read and register (an application that reads its configuration and registers its versions); give a pipeline that sets values `write` as well. `secrets` lets the key receive secret entries over gRPC; only a canReveal user may give it (else 403).',
        params,
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 200, examples: ['deploy pipeline'] }),
          scopes: Type.Optional(
            Type.Array(Scope, { minItems: 1, maxItems: API_KEY_SCOPES.length, examples: [['read', 'write']] }),
          ),
        }),
        response: { 201: CreatedApiKeySchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { name, scopes } = request.body;
      const caller = callerOf(request);
      // A key that reads secrets is made only by someone who may read them.
      if (scopes?.includes('secrets')) requireReveal(caller);
      const created = await apiKeys.create(actorOfCaller(caller), request.params.serviceId, {
        name,
        scopes: scopes ?? DEFAULT_API_KEY_SCOPES,
      });
      const { createdBy: _by, lastUsedAt: _used, revokedAt: _revoked, ...shown } = apiKeyOf(created);
      return reply.code(201).send({ ...shown, key: created.key });
    },
  );

  app.delete(
    '/api/services/:serviceId/apikeys/:keyId',
    {
      config: { policy: { service: 'manage' }, changesAccess: true },
      schema: {
        tags,
        summary: 'Revoke an API key: calls using it are refused from now on',
        params: Type.Object({ serviceId: Uuid, keyId: Uuid }),
        response: { 204: Type.Null(), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await apiKeys.revoke(actorOfCaller(callerOf(request)), request.params.serviceId, request.params.keyId);
      return reply.code(204).send(null);
    },
  );
};

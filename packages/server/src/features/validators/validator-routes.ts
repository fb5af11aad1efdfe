import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOfCaller, type ValidatorRecord } from '../../core/index.js';
import { microsToIso } from '../../platform/clock.js';
import { Nullable, problems, Timestamp, Uuid } from '../../platform/http/schemas.js';
import { callerOf } from '../auth/index.js';
import { EndpointDescription, endpointUrl, signingSecret } from '../webhooks/index.js';
import type { Validators } from './validators.js';

const Url = endpointUrl(
  'An http(s) URL; as for webhooks, hosts on loopback, private or link-local networks are refused unless Webhooks:AllowPrivateNetworks',
  'https://ci.example.com/realtime-config/validate',
);

const ValidatorSchema = Type.Object(
  {
    id: Uuid,
    url: Type.String(),
    description: Nullable(Type.String()),
    enabled: Type.Boolean({
      description: 'Only enabled validators are asked; a disabled one lets every write through',
    }),
    createdAt: Timestamp,
  },
  { $id: 'Validator' },
);
const validatorRef = Type.Unsafe<ReturnType<typeof validatorOf>>({ $ref: 'Validator#' });

function validatorOf(v: ValidatorRecord) {
  return { id: v.id, url: v.url, description: v.description, enabled: v.enabled, createdAt: microsToIso(v.createdAt) };
}

/**
 * Validators of a service: outside checks (a CI gate, a policy engine) asked before every write of
 * its values, fail-closed (docs/validation.md). Managed by the service's owners (and canAll users).
 */
export const validatorRoutes: FastifyPluginAsyncTypebox<{ validators: Validators }> = async (app, { validators }) => {
  app.addSchema(ValidatorSchema);
  const tags = ['validators'];
  const base = '/api/services/:serviceId/validators';
  const params = Type.Object({ serviceId: Uuid });
  const oneParams = Type.Object({ serviceId: Uuid, validatorId: Uuid });
  const config = { policy: { service: 'manage' as const } };
  // Creating a validator mints a signing secret: a signed-in session only.
  const mintsSecret = { ...config, changesAccess: true };

  app.get(
    base,
    {
      config,
      schema: {
        tags,
        summary: 'The validators of a service, oldest first (never their secrets)',
        params,
        response: { 200: Type.Array(validatorRef), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => (await validators.list(request.params.serviceId)).map(validatorOf),
  );

  app.post(
    base,
    {
      config: mintsSecret,
      schema: {
        tags,
        summary: 'Add a validator; its signing secret is shown only in this answer',
        description:
          'Before any write of values to the service commits, every enabled validator gets a signed POST (Standard Webhooks headers, type `validation.requested`) with the proposed change, in parallel; each must answer 2xx within Validation:TimeoutSeconds (default 5), or the write answers 400 with `violations` (keyword `validator`) and nothing is written. Dry runs ask them too and show their answers. See docs/validation.md.',
        params,
        body: Type.Object({ url: Url, description: Type.Optional(EndpointDescription) }),
        response: {
          201: Type.Object({
            ...ValidatorSchema.properties,
            secret: signingSecret('requests'),
          }),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const { validator, secret } = await validators.create(
        actorOfCaller(callerOf(request)),
        request.params.serviceId,
        { url: request.body.url, description: request.body.description ?? null, enabled: true },
      );
      return reply.code(201).send({ ...validatorOf(validator), secret });
    },
  );

  app.get(
    `${base}/:validatorId`,
    { config, schema: { tags, params: oneParams, response: { 200: validatorRef, ...problems(400, 401, 403, 404) } } },
    async (request) => validatorOf(await validators.get(request.params.serviceId, request.params.validatorId)),
  );

  app.put(
    `${base}/:validatorId`,
    {
      config,
      schema: {
        tags,
        summary: 'Change a validator: the fields sent (`{"enabled":false}` lets writes through while it is down)',
        params: oneParams,
        body: Type.Object({
          url: Type.Optional(Url),
          description: Type.Optional(EndpointDescription),
          enabled: Type.Optional(Type.Boolean()),
        }),
        response: { 200: validatorRef, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { serviceId, validatorId } = request.params;
      const actor = actorOfCaller(callerOf(request));
      return validatorOf(await validators.replace(actor, serviceId, validatorId, request.body));
    },
  );

  app.delete(
    `${base}/:validatorId`,
    {
      config,
      schema: {
        tags,
        summary: 'Remove a validator',
        params: oneParams,
        response: { 204: Type.Null(), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { serviceId, validatorId } = request.params;
      await validators.delete(actorOfCaller(callerOf(request)), serviceId, validatorId);
      return reply.code(204).send(null);
    },
  );
};

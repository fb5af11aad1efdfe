import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOfCaller, type VersionRecord } from '../../core/index.js';
import { microsToIso } from '../../platform/clock.js';
import { Nullable, problems, Timestamp, Uuid } from '../../platform/http/schemas.js';
import { callerOf } from '../auth/index.js';
import type { VersionCommands } from './version-commands.js';
import type { VersionQueries } from './version-queries.js';

const VersionSchema = Type.Object(
  {
    id: Uuid,
    serviceId: Uuid,
    versionLabel: Type.String(),
    description: Nullable(Type.String()),
    protected: Type.Boolean({
      description: 'Changes of its entries go through change requests, approved by another editor or owner',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Version' },
);
const versionRef = Type.Unsafe<ReturnType<typeof versionOf>>({ $ref: 'Version#' });

const VersionBody = Type.Object({
  versionLabel: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 4000 }))),
  protected: Type.Optional(
    Type.Boolean({ description: 'Protects the version (owners): its changes then need a reviewed change request' }),
  ),
});

const VersionUpdateBody = Type.Object(
  { ...VersionBody.properties, versionLabel: Type.Optional(VersionBody.properties.versionLabel) },
  { minProperties: 1 },
);

const NewVersionBody = Type.Object({
  ...VersionBody.properties,
  copyFrom: Type.Optional(
    Nullable(
      Type.String({
        format: 'uuid',
        description: 'A version of the same service to start from (a copy of its entries)',
      }),
    ),
  ),
});

export function versionOf(v: VersionRecord) {
  return { ...v, createdAt: microsToIso(v.createdAt), updatedAt: microsToIso(v.updatedAt) };
}

export const versionRoutes: FastifyPluginAsyncTypebox<{ commands: VersionCommands; queries: VersionQueries }> = async (
  app,
  { commands, queries },
) => {
  app.addSchema(VersionSchema);
  const tags = ['versions'];
  const serviceParams = Type.Object({ serviceId: Uuid });
  const params = Type.Object({ serviceId: Uuid, versionId: Uuid });

  app.get(
    '/api/configversions/:serviceId',
    {
      config: { policy: { service: 'read' } },
      schema: {
        tags,
        params: serviceParams,
        response: { 200: Type.Array(versionRef), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => (await queries.list(request.params.serviceId)).map(versionOf),
  );

  app.get(
    '/api/configversions/:serviceId/:versionId',
    {
      config: { policy: { service: 'read' } },
      schema: { tags, params, response: { 200: versionRef, ...problems(400, 401, 403, 404) } },
    },
    async (request) => versionOf(await queries.get(request.params.serviceId, request.params.versionId)),
  );

  app.post(
    '/api/configversions/:serviceId',
    {
      config: { policy: { service: 'manage' } },
      schema: {
        tags,
        summary: 'Create a version, empty or as a copy of another version of the service',
        params: serviceParams,
        body: NewVersionBody,
        response: { 201: versionRef, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { versionLabel, description, copyFrom } = request.body;
      const version = await commands.create(
        actorOfCaller(callerOf(request)),
        request.params.serviceId,
        {
          versionLabel,
          description: description ?? null,
          ...(request.body.protected !== undefined ? { protected: request.body.protected } : {}),
        },
        copyFrom ? copyFrom.toLowerCase() : null,
      );
      return reply.code(201).send(versionOf(version));
    },
  );

  app.put(
    '/api/configversions/:serviceId/:versionId',
    {
      config: { policy: { service: 'manage' } },
      schema: {
        tags,
        summary: 'Change a version: its label and description, or only its protection',
        description:
          'With `versionLabel` the body replaces the label and the description (left out: none). Without it, only the fields sent change: `{"protected": true}` protects the version and keeps the rest.',
        params,
        body: VersionUpdateBody,
        response: { 200: versionRef, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { versionLabel, description, protected: isProtected } = request.body;
      const changes =
        versionLabel === undefined
          ? { ...(description !== undefined ? { description } : {}) }
          : { versionLabel, description: description ?? null };
      return versionOf(
        await commands.update(callerOf(request), request.params.serviceId, request.params.versionId, {
          ...changes,
          ...(isProtected !== undefined ? { protected: isProtected } : {}),
        }),
      );
    },
  );

  app.delete(
    '/api/configversions/:serviceId/:versionId',
    {
      config: { policy: { service: 'manage' } },
      schema: {
        tags,
        summary: 'Delete a version with its entries',
        params,
        response: { 204: Type.Null(), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await commands.delete(actorOfCaller(callerOf(request)), request.params.serviceId, request.params.versionId);
      return reply.code(204).send(null);
    },
  );
};

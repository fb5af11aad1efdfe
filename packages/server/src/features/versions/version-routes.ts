import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf, type VersionRecord } from '../../core/index.js';
import { microsToIso } from '../../platform/clock.js';
import { Nullable, problems, Timestamp, Uuid } from '../../platform/http/schemas.js';
import { identityOf } from '../auth/index.js';
import type { VersionCommands } from './version-commands.js';
import type { VersionQueries } from './version-queries.js';

const VersionSchema = Type.Object(
  {
    id: Uuid,
    serviceId: Uuid,
    versionLabel: Type.String(),
    description: Nullable(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Version' },
);
const versionRef = Type.Unsafe<ReturnType<typeof versionOf>>({ $ref: 'Version#' });

const VersionBody = Type.Object({
  versionLabel: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 4000 }))),
});

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

function versionOf(v: VersionRecord) {
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
      config: { policy: 'canChange' },
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
      config: { policy: 'canChange' },
      schema: { tags, params, response: { 200: versionRef, ...problems(400, 401, 403, 404) } },
    },
    async (request) => versionOf(await queries.get(request.params.serviceId, request.params.versionId)),
  );

  app.post(
    '/api/configversions/:serviceId',
    {
      config: { policy: 'canAll' },
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
        actorOf(identityOf(request)),
        request.params.serviceId,
        { versionLabel, description: description ?? null },
        copyFrom ? copyFrom.toLowerCase() : null,
      );
      return reply.code(201).send(versionOf(version));
    },
  );

  app.put(
    '/api/configversions/:serviceId/:versionId',
    {
      config: { policy: 'canAll' },
      schema: { tags, params, body: VersionBody, response: { 200: versionRef, ...problems(400, 401, 403, 404, 409) } },
    },
    async (request) =>
      versionOf(
        await commands.update(actorOf(identityOf(request)), request.params.serviceId, request.params.versionId, {
          versionLabel: request.body.versionLabel,
          description: request.body.description ?? null,
        }),
      ),
  );

  app.delete(
    '/api/configversions/:serviceId/:versionId',
    {
      config: { policy: 'canAll' },
      schema: {
        tags,
        summary: 'Delete a version with its entries',
        params,
        response: { 204: Type.Null(), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await commands.delete(actorOf(identityOf(request)), request.params.serviceId, request.params.versionId);
      return reply.code(204).send(null);
    },
  );
};

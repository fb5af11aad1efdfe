import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOfCaller, type EntryRecord } from '../../core/index.js';
import { microsToIso } from '../../platform/clock.js';
import { Nullable, problems, Timestamp, Uuid } from '../../platform/http/schemas.js';
import { callerOf } from '../auth/index.js';
import { MAX_BATCH_ITEMS, type EntryCommands } from './entry-commands.js';
import type { EntryQueries } from './entry-queries.js';
import { ENTRY_LIMITS } from './entry-limits.js';

const EntrySchema = Type.Object(
  {
    id: Uuid,
    key: Type.String(),
    name: Type.String(),
    rawValue: Nullable(Type.String()),
    valueType: Type.Integer({ minimum: 0, maximum: 8 }),
    enumDefinition: Nullable(Type.String()),
    description: Nullable(Type.String()),
    groupName: Nullable(Type.String()),
    groupDescription: Nullable(Type.String()),
    generation: Type.Integer(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Entry' },
);
const entryRef = Type.Unsafe<ReturnType<typeof entryOf>>({ $ref: 'Entry#' });

const RawValue = Nullable(Type.String({ maxLength: ENTRY_LIMITS.rawValue }));
const Text = (maxLength: number) => Type.Optional(Nullable(Type.String({ maxLength })));

export function entryOf(e: EntryRecord) {
  return {
    id: e.id,
    key: e.key,
    name: e.name,
    rawValue: e.rawValue,
    valueType: e.valueType,
    enumDefinition: e.enumDefinition,
    description: e.description,
    groupName: e.groupName,
    groupDescription: e.groupDescription,
    generation: e.generation,
    createdAt: microsToIso(e.createdAt),
    updatedAt: microsToIso(e.updatedAt),
  };
}

export const entryRoutes: FastifyPluginAsyncTypebox<{ commands: EntryCommands; queries: EntryQueries }> = async (
  app,
  { commands, queries },
) => {
  app.addSchema(EntrySchema);
  const tags = ['entries'];
  const params = Type.Object({ serviceId: Uuid, versionId: Uuid });
  const entryParams = Type.Object({ serviceId: Uuid, versionId: Uuid, entryId: Uuid });

  app.get(
    '/api/configentries/:serviceId/:versionId',
    {
      config: { policy: { service: 'read' } },
      schema: { tags, params, response: { 200: Type.Array(entryRef), ...problems(400, 401, 403, 404) } },
    },
    async (request) => (await queries.list(request.params.serviceId, request.params.versionId)).map(entryOf),
  );

  app.post(
    '/api/configentries/:serviceId/:versionId',
    {
      config: { policy: { service: 'manage' } },
      schema: {
        tags,
        params,
        body: Type.Object({
          key: Type.String({
            minLength: 1,
            maxLength: ENTRY_LIMITS.key,
            description:
              'Non-empty segments joined by ":" (`Db:Timeout`). The segments `__proto__`, `constructor` and `prototype` are reserved (400).',
          }),
          name: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: ENTRY_LIMITS.name,
              description: 'Display name; defaults to the key',
            }),
          ),
          rawValue: Type.Optional(RawValue),
          valueType: Type.Integer({ minimum: 0, maximum: 8 }),
          enumDefinition: Text(ENTRY_LIMITS.enumDefinition),
          description: Text(ENTRY_LIMITS.description),
          groupName: Text(ENTRY_LIMITS.groupName),
          groupDescription: Text(ENTRY_LIMITS.groupDescription),
        }),
        response: { 201: entryRef, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const entry = await commands.create(
        actorOfCaller(callerOf(request)),
        request.params.serviceId,
        request.params.versionId,
        {
          key: b.key,
          name: b.name ?? b.key,
          rawValue: b.rawValue ?? null,
          valueType: b.valueType,
          enumDefinition: b.enumDefinition ?? null,
          description: b.description ?? null,
          groupName: b.groupName ?? null,
          groupDescription: b.groupDescription ?? null,
        },
      );
      return reply.code(201).send(entryOf(entry));
    },
  );

  app.put(
    '/api/configentries/:serviceId/:versionId/set',
    {
      config: { policy: { service: 'write' } },
      schema: {
        tags,
        summary: 'Set values of several entries at once (all or nothing, optimistic concurrency)',
        params,
        body: Type.Array(Type.Object({ id: Uuid, rawValue: RawValue, generation: Type.Integer({ minimum: 0 }) }), {
          minItems: 1,
          maxItems: MAX_BATCH_ITEMS,
        }),
        response: { 200: Type.Array(entryRef), ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      (
        await commands.setValues(callerOf(request), request.params.serviceId, request.params.versionId, request.body)
      ).map(entryOf),
  );

  app.put(
    '/api/configentries/:serviceId/:versionId/:entryId',
    {
      config: { policy: { service: 'manage' } },
      schema: {
        tags,
        summary: 'Update display metadata and the default value; omitted fields keep their value',
        params: entryParams,
        body: Type.Object({
          name: Type.Optional(Type.String({ minLength: 1, maxLength: ENTRY_LIMITS.name })),
          description: Text(ENTRY_LIMITS.description),
          groupName: Text(ENTRY_LIMITS.groupName),
          groupDescription: Text(ENTRY_LIMITS.groupDescription),
          enumDefinition: Text(ENTRY_LIMITS.enumDefinition),
          rawValue: Type.Optional(RawValue),
          generation: Type.Integer({ minimum: 0 }),
        }),
        response: { 200: entryRef, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { serviceId, versionId, entryId } = request.params;
      const updated = await commands.updateMetadata(
        actorOfCaller(callerOf(request)),
        serviceId,
        versionId,
        entryId,
        request.body,
      );
      return entryOf(updated);
    },
  );

  app.delete(
    '/api/configentries/:serviceId/:versionId/:entryId',
    {
      config: { policy: { service: 'manage' } },
      schema: { tags, params: entryParams, response: { 204: Type.Null(), ...problems(400, 401, 403, 404) } },
    },
    async (request, reply) => {
      const { serviceId, versionId, entryId } = request.params;
      await commands.delete(actorOfCaller(callerOf(request)), serviceId, versionId, entryId);
      return reply.code(204).send(null);
    },
  );
};

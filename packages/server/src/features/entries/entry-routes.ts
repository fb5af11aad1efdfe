import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOfCaller, entryAnswer, type EntryAnswer, type EntrySchema, type SecretCipher } from '../../core/index.js';
import { Nullable, problems, Timestamp, Uuid } from '../../platform/http/schemas.js';
import { callerOf } from '../auth/index.js';
import { MAX_BATCH_ITEMS, type EntryCommands } from './entry-commands.js';
import type { EntryQueries } from './entry-queries.js';
import { ENTRY_LIMITS } from './entry-limits.js';
import { targetingRoutes } from './targeting-routes.js';
import { ValueTypeField } from './value-type-field.js';

/** An entry's JSON Schema, as answered and as sent (object, or null for none). */
const EntrySchemaSchema = Nullable(
  Type.Object(
    {},
    {
      additionalProperties: true,
      description:
        'A JSON Schema (draft 2020-12) the typed value must meet (Number a JSON number, Boolean true/false, Array and Json the document, other types the text); null for none. See docs/validation.md.',
      examples: [{ minimum: 1, maximum: 300 }],
    },
  ),
);

const OverrideAnswerSchema = Type.Object({
  labels: Type.Record(Type.String(), Type.String(), { description: 'Labels an instance must all have' }),
  rawValue: Nullable(Type.String()),
  redacted: Type.Optional(Type.Boolean({ description: 'Secrets: true, and rawValue is null' })),
  fingerprint: Type.Optional(Nullable(Type.String({ description: "Secrets: the value's fingerprint" }))),
});

const EntrySchema = Type.Object(
  {
    id: Uuid,
    key: Type.String(),
    name: Type.String(),
    rawValue: Nullable(Type.String()),
    valueType: ValueTypeField,
    enumDefinition: Nullable(Type.String()),
    description: Nullable(Type.String()),
    groupName: Nullable(Type.String()),
    groupDescription: Nullable(Type.String()),
    generation: Type.Integer(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    isSecret: Type.Boolean({ description: 'A secret: its value is encrypted at rest and never in an answer' }),
    schema: EntrySchemaSchema,
    hasValue: Type.Boolean({ description: 'The value is not null (for a secret, without showing it)' }),
    overrides: Type.Array(OverrideAnswerSchema, {
      description:
        "Values for instances by label, first match wins (docs/targeting.md); a secret's are redacted like its value",
    }),
    redacted: Type.Optional(Type.Boolean({ description: 'Secrets: true, and rawValue is null' })),
    fingerprint: Type.Optional(
      Nullable(
        Type.String({
          description:
            'Secrets: HMAC-SHA256 (hex) of the value, so equal values compare equal without being shown; null for a null value or one that cannot be decrypted',
        }),
      ),
    ),
    unreadable: Type.Optional(
      Type.Boolean({ description: 'A secret whose stored value cannot be decrypted (altered, or its key is missing)' }),
    ),
  },
  { $id: 'Entry' },
);
const entryRef = Type.Unsafe<EntryAnswer>({ $ref: 'Entry#' });

const RawValue = Nullable(Type.String({ maxLength: ENTRY_LIMITS.rawValue }));
const Text = (maxLength: number) => Type.Optional(Nullable(Type.String({ maxLength })));

export const entryRoutes: FastifyPluginAsyncTypebox<{
  commands: EntryCommands;
  queries: EntryQueries;
  cipher: SecretCipher;
}> = async (app, { commands, queries, cipher }) => {
  const entryOf = (e: Parameters<typeof entryAnswer>[0]) => entryAnswer(e, cipher);
  app.addSchema(EntrySchema);
  await app.register(targetingRoutes, { commands, queries, cipher });
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
          valueType: ValueTypeField,
          enumDefinition: Text(ENTRY_LIMITS.enumDefinition),
          description: Text(ENTRY_LIMITS.description),
          groupName: Text(ENTRY_LIMITS.groupName),
          groupDescription: Text(ENTRY_LIMITS.groupDescription),
          isSecret: Type.Optional(
            Type.Boolean({
              description:
                'A secret (any value type): encrypted at rest, redacted in every answer; 409 without a master key (Secrets:MasterKeyFile)',
            }),
          ),
          schema: Type.Optional(EntrySchemaSchema),
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
          isSecret: b.isSecret ?? false,
          schema: (b.schema ?? null) as EntrySchema | null,
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
          isSecret: Type.Optional(
            Type.Boolean({
              description:
                'Makes the entry secret (every stored copy of its values is then encrypted); only canAll may turn it off',
            }),
          ),
          schema: Type.Optional(EntrySchemaSchema),
          generation: Type.Integer({ minimum: 0 }),
        }),
        response: { 200: entryRef, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { serviceId, versionId, entryId } = request.params;
      const { schema, ...change } = request.body;
      const updated = await commands.updateMetadata(callerOf(request), serviceId, versionId, entryId, {
        ...change,
        ...(schema !== undefined ? { schema: schema as EntrySchema | null } : {}),
      });
      return entryOf(updated);
    },
  );

  app.post(
    '/api/configentries/:serviceId/:versionId/:entryId/reveal',
    {
      config: { policy: { service: 'read' } },
      schema: {
        tags,
        summary: "Show a secret's value (canReveal policy); every reveal is audited as Revealed",
        description:
          'A secret whose stored value cannot be decrypted (altered, or sealed by a master key that is not configured) answers 409, naming Secrets:MasterKeyFile and Secrets:PreviousKeyFiles.',
        params: entryParams,
        response: {
          200: Type.Object({ rawValue: Nullable(Type.String()), generation: Type.Integer() }),
          ...problems(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) => {
      const { serviceId, versionId, entryId } = request.params;
      const entry = await commands.reveal(callerOf(request), serviceId, versionId, entryId);
      return { rawValue: entry.rawValue, generation: entry.generation };
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

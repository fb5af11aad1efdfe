import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { entryAnswer, parseLabels, redactedValue, type EntryAnswer, type SecretCipher } from '../../core/index.js';
import { Nullable, problems, Uuid } from '../../platform/http/schemas.js';
import { callerOf } from '../auth/index.js';
import type { EntryCommands } from './entry-commands.js';
import type { EntryQueries } from './entry-queries.js';
import { ENTRY_LIMITS } from './entry-limits.js';

const entryRef = Type.Unsafe<EntryAnswer>({ $ref: 'Entry#' });

const OverrideSchema = Type.Object({
  labels: Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.String({ maxLength: 200 }), {
    description: 'Labels an instance must all have (x-rc-labels); at least one',
  }),
  rawValue: Nullable(Type.String({ maxLength: ENTRY_LIMITS.rawValue })),
});

const ResolvedSchema = Type.Object({
  key: Type.String(),
  entryId: Uuid,
  rawValue: Nullable(Type.String()),
  generation: Type.Integer(),
  source: Type.Union([Type.Literal('value'), Type.Literal('override'), Type.Literal('rollout')]),
  overrideIndex: Nullable(Type.Integer({ description: 'The matching override (0-based) when source is override' })),
  rolloutId: Nullable(Type.String({ description: 'The rollout when source is rollout' })),
  redacted: Type.Optional(Type.Boolean({ description: 'Secrets: true, and rawValue is null' })),
  fingerprint: Type.Optional(Nullable(Type.String({ description: "Secrets: the value's fingerprint" }))),
});

/** Targeting (docs/targeting.md): an entry's overrides by label, and what an instance resolves. */
export const targetingRoutes: FastifyPluginAsyncTypebox<{
  commands: EntryCommands;
  queries: EntryQueries;
  cipher: SecretCipher;
}> = async (app, { commands, queries, cipher }) => {
  const tags = ['entries'];

  app.put(
    '/api/configentries/:serviceId/:versionId/:entryId/overrides',
    {
      config: { policy: { service: 'write' } },
      schema: {
        tags,
        summary: "Set an entry's overrides by label (replaces them; generation + 1, optimistic concurrency)",
        description:
          'Each override gives its rawValue to instances whose labels contain all of its labels; the first match in list order wins. At most 50; each value is checked like a value of the entry.',
        params: Type.Object({ serviceId: Uuid, versionId: Uuid, entryId: Uuid }),
        body: Type.Object({
          overrides: Type.Array(OverrideSchema, { maxItems: 1000 }),
          generation: Type.Integer({ minimum: 0 }),
        }),
        response: { 200: entryRef, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { serviceId, versionId, entryId } = request.params;
      const updated = await commands.setOverrides(callerOf(request), serviceId, versionId, entryId, request.body);
      return entryAnswer(updated, cipher);
    },
  );

  app.get(
    '/api/configversions/:serviceId/:versionId/resolve',
    {
      config: { policy: { service: 'read' } },
      schema: {
        tags,
        summary: 'The values an instance with these labels and id gets (overrides, rollouts, values)',
        params: Type.Object({ serviceId: Uuid, versionId: Uuid }),
        querystring: Type.Object({
          labels: Type.Optional(
            Type.String({ description: 'As x-rc-labels: k=v,k2=v2 with %, "," and "=" percent-encoded' }),
          ),
          instanceId: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: {
          200: Type.Object({ entries: Type.Array(ResolvedSchema) }),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { serviceId, versionId } = request.params;
      const labels = new Map(parseLabels(request.query.labels, 'labels'));
      const instance = { instanceId: request.query.instanceId || null, labels };
      const resolved = await queries.resolve(serviceId, versionId, instance);
      return {
        entries: resolved.map(({ entry, resolved: r }) => ({
          key: entry.key,
          entryId: entry.id,
          rawValue: r.rawValue,
          generation: r.generation,
          source: r.source,
          overrideIndex: r.overrideIndex,
          rolloutId: r.rolloutId,
          // A secret's resolved value is redacted as its value is in every answer.
          ...(entry.isSecret ? redactedValue(cipher, r.rawValue, r.unreadable ?? entry.unreadable) : {}),
        })),
      };
    },
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { overridesAnswer, valueAnswer, type SecretCipher } from '../../core/index.js';
import { isoToMicros, microsToIso } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import { Nullable, problems, Timestamp, Uuid } from '../../platform/http/schemas.js';
import { callerOf } from '../auth/index.js';
import { ENTRY_LIMITS, planOutcomeOf, PlanOutcomeSchema, type EntryPlans } from '../entries/index.js';
import { restorePlanner, type EntryHistory } from './entry-history.js';

const HistoryItemSchema = Type.Object({
  action: Type.String({
    description:
      'Created, Updated, ValueSet, OverridesSet, Deleted, Restored, Imported, Promoted, RolloutCompleted or RolloutRolledBack',
  }),
  value: Nullable(Type.String({ description: 'The value after the change; null when deleted (or null itself)' })),
  generation: Type.Integer(),
  deleted: Type.Boolean(),
  timestamp: Timestamp,
  timestampMicros: Type.Integer({ description: 'Microseconds since the epoch: the change time on the version clock' }),
  userId: Nullable(Type.String()),
  userName: Nullable(Type.String()),
  isSecret: Type.Boolean(),
  redacted: Type.Optional(Type.Boolean({ description: 'A secret: the value is left out (null)' })),
  fingerprint: Type.Optional(Nullable(Type.String({ description: "HMAC-SHA256 of the secret's value" }))),
  overrides: Nullable(
    Type.Array(
      Type.Object({
        labels: Type.Record(Type.String(), Type.String()),
        rawValue: Nullable(Type.String()),
        redacted: Type.Optional(Type.Boolean()),
        fingerprint: Type.Optional(Nullable(Type.String())),
      }),
      { description: "The overrides after the change (a secret's redacted); null when the change kept them" },
    ),
  ),
});

export interface HistoryRoutesOptions {
  history: EntryHistory;
  plans: EntryPlans;
  cipher: SecretCipher;
}

/** Entry history and restore to a point in time. */
export const historyRoutes: FastifyPluginAsyncTypebox<HistoryRoutesOptions> = async (
  app,
  { history, plans, cipher },
) => {
  const tags = ['history'];

  app.get(
    '/api/configentries/:serviceId/:versionId/:entryId/history',
    {
      config: { policy: { service: 'read' } },
      schema: {
        tags,
        summary: 'Every change of an entry, newest first (deleted entries too)',
        params: Type.Object({ serviceId: Uuid, versionId: Uuid, entryId: Uuid }),
        querystring: Type.Object({
          // Query strings are text (no type coercion in this API): a number of 1 to 500.
          pageSize: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,2}$', description: '1–500, default 20' })),
          pageToken: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: {
          200: Type.Object({ entities: Type.Array(HistoryItemSchema), nextPageToken: Type.String() }),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { serviceId, versionId, entryId } = request.params;
      const { pageSize, pageToken } = request.query;
      const page = await history.of(serviceId, versionId, entryId, {
        pageSize: pageSize === undefined ? null : Number(pageSize),
        pageToken: pageToken ?? null,
      });
      return {
        entities: page.items.map(({ unreadable, overrides, ...item }) => ({
          ...item,
          ...valueAnswer(cipher, { rawValue: item.value, isSecret: item.isSecret, unreadable }),
          overrides: overrides && overridesAnswer({ overrides, isSecret: item.isSecret }, cipher),
          timestamp: microsToIso(item.timestampMicros),
        })),
        nextPageToken: page.nextPageToken,
      };
    },
  );

  app.post(
    '/api/configentries/:serviceId/:versionId/restore',
    {
      // A dry run only reads; applying checks that the caller may change values (and create or delete keys).
      config: { policy: { service: 'read' } },
      schema: {
        tags,
        summary: 'Restore values to what they were at a point in time (dry run first)',
        description:
          'Computes the value each key had at `at`: a key that did not exist then is deleted, one deleted since is created again. A value an entry had while secret is never restored into it once it is no longer secret (400); for a caller without canReveal a secret is a change whatever its value. `dryRun` (the default) answers the changes and a `basedOn` token; applying (`dryRun: false`) needs that token and answers 409 when any key changed since. Applied as one batch: one stream event, audit action `Restored`. Editors may restore values; creating and deleting entries needs an owner.',
        params: Type.Object({ serviceId: Uuid, versionId: Uuid }),
        body: Type.Object(
          {
            at: Type.String({
              maxLength: 64,
              description: 'ISO 8601 time with zone',
              examples: ['2026-11-20T09:00:00Z'],
            }),
            keys: Type.Optional(
              Type.Array(Type.String({ minLength: 1, maxLength: ENTRY_LIMITS.key }), { maxItems: plans.maxChanges }),
            ),
            dryRun: Type.Optional(Type.Boolean({ default: true })),
            basedOn: Type.Optional(Type.String({ maxLength: 1_000_000 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: PlanOutcomeSchema, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { serviceId, versionId } = request.params;
      const { at, keys, dryRun = true, basedOn } = request.body;
      const atMicros = isoToMicros(at);
      if (atMicros === undefined) {
        throw AppError.invalid('at must be an ISO 8601 time with a zone.', { at: ['is not an ISO 8601 time'] });
      }
      const planner = restorePlanner(atMicros, keys ?? null);
      if (dryRun) return planOutcomeOf(await plans.preview(callerOf(request), serviceId, versionId, planner), cipher);
      if (!basedOn) {
        throw AppError.invalid('Applying a restore needs the basedOn token of its dry run.', {
          basedOn: ['is required when dryRun is false'],
        });
      }
      return planOutcomeOf(
        await plans.apply(callerOf(request), { serviceId, versionId }, planner, { basedOn, action: 'Restored' }),
        cipher,
      );
    },
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AUDIT_ACTIONS } from '../../core/index.js';
import { isoToMicros, microsToIso } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import { Nullable, problems, Timestamp, Uuid } from '../../platform/http/schemas.js';
import { callerOf } from '../auth/index.js';
import { redactSecrets, type SecretCipher } from '../../core/index.js';
import { ENTITY_TYPES, parseAction, parseEntityType, type AuditItem, type AuditQueries } from './audit-queries.js';

const AuditRecordSchema = Type.Object(
  {
    id: Uuid,
    num: Type.Integer(),
    serviceId: Nullable(Type.String()),
    entityType: Type.String(),
    entityId: Type.String(),
    action: Type.String(),
    userId: Nullable(Type.String()),
    userName: Nullable(Type.String()),
    timestamp: Timestamp,
    versionId: Nullable(Type.String({ description: "An entry record's version; null for other records" })),
    versionLabel: Nullable(
      Type.String({ description: "The label of an entry record's version (its last, if deleted since); else null" }),
    ),
    changes: Type.Object(
      { before: Type.Optional(Type.Unknown()), after: Type.Optional(Type.Unknown()) },
      { additionalProperties: true },
    ),
  },
  { $id: 'AuditRecord' },
);
const auditRef = Type.Unsafe<ReturnType<typeof auditOf>>({ $ref: 'AuditRecord#' });

/** A record as answered: secret values in its changes redacted (fingerprints only). */
function auditOf(r: AuditItem, cipher: SecretCipher) {
  return { ...r, changes: redactSecrets(r.changes, cipher), timestamp: microsToIso(r.timestamp) };
}

/** A time bound of the search, in µs; null when not given. */
function timeBound(field: 'from' | 'to', value: string | null | undefined): number | null {
  if (!value) return null;
  const micros = isoToMicros(value);
  if (micros === undefined) {
    throw AppError.invalid(`${field} must be an ISO 8601 time with a zone, e.g. 2026-05-01T09:30:00Z.`, {
      [field]: ['is not an ISO 8601 time with a zone'],
    });
  }
  return micros;
}

export const auditRoutes: FastifyPluginAsyncTypebox<{ queries: AuditQueries; cipher: SecretCipher }> = async (
  app,
  { queries, cipher },
) => {
  app.addSchema(AuditRecordSchema);

  app.post(
    '/api/auditlogs/search',
    {
      // A search: a follower serves it from its standby (docs/regions.md).
      config: { policy: 'authenticated', writes: false },
      schema: {
        tags: ['audit'],
        summary: 'Audit records of a service, newest first',
        description:
          'Needs read access to the service (canChange, a role in it, or an API key of it with `read`). Every filter is optional and they combine: `entityType`, `versionId` (the entry records of that version), `userId` (without regard to case), `action` and the time range `from`–`to` (ISO 8601 with a zone, both included). Each record names its version (`versionId`, `versionLabel`) when it is an entry record.',
        body: Type.Object({
          serviceId: Uuid,
          entityType: Type.Optional(Nullable(Type.String({ description: `${ENTITY_TYPES.join(', ')} (any case)` }))),
          versionId: Type.Optional(Nullable(Uuid)),
          userId: Type.Optional(Nullable(Type.String({ maxLength: 320 }))),
          action: Type.Optional(Nullable(Type.String({ maxLength: 40, description: AUDIT_ACTIONS.join(', ') }))),
          from: Type.Optional(Nullable(Type.String({ maxLength: 64, description: 'ISO 8601 time with a zone' }))),
          to: Type.Optional(Nullable(Type.String({ maxLength: 64, description: 'ISO 8601 time with a zone' }))),
          pageSize: Type.Optional(Nullable(Type.Integer())),
          pageToken: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
        }),
        response: {
          200: Type.Object({ entities: Type.Array(auditRef), nextPageToken: Type.String() }),
          ...problems(400, 401, 403),
        },
      },
    },
    async (request) => {
      const { serviceId, entityType, versionId, userId, action, from, to, pageSize, pageToken } = request.body;
      const type = entityType ? parseEntityType(entityType) : null;
      if (type === undefined) {
        throw AppError.invalid('Unknown entity type.', {
          entityType: [`must be one of ${ENTITY_TYPES.join(', ')}`],
        });
      }
      const canonicalAction = action ? parseAction(action) : null;
      if (canonicalAction === undefined) {
        throw AppError.invalid('Unknown action.', { action: [`must be one of ${AUDIT_ACTIONS.join(', ')}`] });
      }
      const fromMicros = timeBound('from', from);
      const toMicros = timeBound('to', to);
      if (fromMicros !== null && toMicros !== null && fromMicros > toMicros) {
        throw AppError.invalid('The time range ends before it starts.', { to: ['is before from'] });
      }
      const page = await queries.search({
        caller: callerOf(request),
        serviceId,
        entityType: type,
        versionId: versionId ? versionId.toLowerCase() : null,
        userId: userId?.trim() || null,
        action: canonicalAction,
        fromMicros,
        toMicros,
        pageSize,
        pageToken,
      });
      return { entities: page.entities.map((r) => auditOf(r, cipher)), nextPageToken: page.nextPageToken };
    },
  );
};

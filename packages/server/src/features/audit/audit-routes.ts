import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AuditRecord } from '../../core/index.js';
import { microsToIso } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import { Nullable, problems, Timestamp, Uuid } from '../../platform/http/schemas.js';
import { callerOf } from '../auth/index.js';
import { parseEntityType, type AuditQueries } from './audit-queries.js';

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
    changes: Type.Object(
      { before: Type.Optional(Type.Unknown()), after: Type.Optional(Type.Unknown()) },
      { additionalProperties: true },
    ),
  },
  { $id: 'AuditRecord' },
);
const auditRef = Type.Unsafe<ReturnType<typeof auditOf>>({ $ref: 'AuditRecord#' });

function auditOf(r: AuditRecord) {
  return { ...r, timestamp: microsToIso(r.timestamp) };
}

export const auditRoutes: FastifyPluginAsyncTypebox<{ queries: AuditQueries }> = async (app, { queries }) => {
  app.addSchema(AuditRecordSchema);

  app.post(
    '/api/auditlogs/search',
    {
      config: { policy: 'authenticated' },
      schema: {
        tags: ['audit'],
        description: 'Needs read access to the service (canChange, a role in it, or an API key of it with `read`).',
        summary: 'Audit records of a service, newest first',
        body: Type.Object({
          serviceId: Uuid,
          entityType: Type.Optional(
            Nullable(
              Type.String({ description: 'Service, Version, Entry, Member, ApiKey or ChangeRequest (any case)' }),
            ),
          ),
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
      const { serviceId, entityType, pageSize, pageToken } = request.body;
      const type = entityType ? parseEntityType(entityType) : null;
      if (type === undefined) {
        throw AppError.invalid('Unknown entity type.', {
          entityType: ['must be one of Service, Version, Entry, Member, ApiKey, ChangeRequest'],
        });
      }
      const page = await queries.search({
        caller: callerOf(request),
        serviceId,
        entityType: type,
        pageSize,
        pageToken,
      });
      return { entities: page.entities.map(auditOf), nextPageToken: page.nextPageToken };
    },
  );
};

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOfCaller, hasPolicy, type MemberRecord, type ServiceRecord } from '../../core/index.js';
import { microsToIso } from '../../platform/clock.js';
import { Nullable, problems, Timestamp, Uuid } from '../../platform/http/schemas.js';
import { AppError } from '../../platform/errors.js';
import { callerOf } from '../auth/index.js';
import type { ServiceCommands } from './service-commands.js';
import type { ServiceQueries } from './service-queries.js';

const ServiceSchema = Type.Object(
  {
    id: Uuid,
    num: Type.Integer(),
    name: Type.String(),
    description: Nullable(Type.String()),
    repositoryUrl: Nullable(Type.String()),
    contactEmail: Nullable(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Service' },
);
const serviceRef = Type.Unsafe<ReturnType<typeof serviceOf>>({ $ref: 'Service#' });

const ServiceBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 4000 }))),
  repositoryUrl: Type.Optional(
    Nullable(Type.String({ format: 'uri', pattern: '^[hH][tT][tT][pP][sS]?://', maxLength: 2000 })),
  ),
  contactEmail: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 320 }))),
});

const Role = Type.Union([Type.Literal('viewer'), Type.Literal('editor'), Type.Literal('owner')], {
  description:
    'viewer reads; editor also sets values, imports, restores, promotes and opens change requests; owner also manages the service (its versions, entries, members, API keys, webhooks and protection)',
});

const MemberSchema = Type.Object(
  { userId: Type.String(), role: Role, addedAt: Timestamp, addedBy: Nullable(Type.String()) },
  { $id: 'Member' },
);
const memberRef = Type.Unsafe<ReturnType<typeof memberOf>>({ $ref: 'Member#' });

function serviceOf(s: ServiceRecord) {
  return { ...s, createdAt: microsToIso(s.createdAt), updatedAt: microsToIso(s.updatedAt) };
}

function memberOf(m: MemberRecord) {
  return { userId: m.userId, role: m.role, addedAt: microsToIso(m.addedAt), addedBy: m.addedBy };
}

function fieldsOf(body: {
  name: string;
  description?: string | null;
  repositoryUrl?: string | null;
  contactEmail?: string | null;
}) {
  return {
    name: body.name,
    description: body.description ?? null,
    repositoryUrl: body.repositoryUrl ?? null,
    contactEmail: body.contactEmail ?? null,
  };
}

export const serviceRoutes: FastifyPluginAsyncTypebox<{ commands: ServiceCommands; queries: ServiceQueries }> = async (
  app,
  { commands, queries },
) => {
  app.addSchema(ServiceSchema);
  app.addSchema(MemberSchema);
  const tags = ['services'];
  const params = Type.Object({ serviceId: Uuid });

  const searchResponse = {
    200: Type.Object({ entities: Type.Array(serviceRef), nextPageToken: Type.String() }),
    ...problems(400, 401, 403),
  };
  /** One page of services by name: canChange users see every one, an API key its own service only. */
  const searchPage = async (
    caller: ReturnType<typeof callerOf>,
    filter: { name?: string | null; pageSize?: number | null; pageToken?: string | null },
  ) => {
    if (caller.kind === 'user' && !hasPolicy(caller.identity, 'canChange')) {
      throw AppError.forbidden('This operation needs the canChange policy.');
    }
    const page = await queries.search({
      ...filter,
      onlyServiceId: caller.kind === 'apiKey' ? caller.key.serviceId : null,
    });
    return { entities: page.entities.map(serviceOf), nextPageToken: page.nextPageToken };
  };

  app.post(
    '/api/services/search',
    {
      config: { policy: 'authenticated' },
      schema: {
        tags,
        summary: 'Search services by name, with cursor paging',
        description: 'Needs canChange; an API key finds its own service only. `GET /api/services` is the same list.',
        body: Type.Object({
          name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
          pageSize: Type.Optional(Nullable(Type.Integer())),
          pageToken: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
        }),
        response: searchResponse,
      },
    },
    async (request) => searchPage(callerOf(request), request.body),
  );

  app.get(
    '/api/services',
    {
      config: { policy: 'authenticated' },
      schema: {
        tags,
        summary: 'List services, with cursor paging',
        description:
          'The list a first `GET` expects: `POST /api/services/search` with the same filters as query parameters, the same access (canChange; an API key sees its own service only) and the same pages (`pageSize` 20 by default, 1–500; `nextPageToken` "" on the last page).',
        querystring: Type.Object({
          name: Type.Optional(Type.String({ maxLength: 200, description: 'part of the name, any case' })),
          // Query strings are text (no type coercion in this API): clamped to 1–500 as in the search.
          pageSize: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$', description: '1–500, default 20' })),
          pageToken: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: searchResponse,
      },
    },
    async (request) => {
      const { name, pageSize, pageToken } = request.query;
      return searchPage(callerOf(request), {
        name: name ?? null,
        pageSize: pageSize === undefined ? null : Number(pageSize),
        pageToken: pageToken || null,
      });
    },
  );

  app.get(
    '/api/services/:serviceId',
    {
      config: { policy: { service: 'read' } },
      schema: { tags, params, response: { 200: serviceRef, ...problems(400, 401, 403, 404) } },
    },
    async (request) => serviceOf(await queries.get(request.params.serviceId)),
  );

  app.post(
    '/api/services',
    {
      config: { policy: 'canAll' },
      schema: { tags, body: ServiceBody, response: { 201: serviceRef, ...problems(400, 401, 403) } },
    },
    async (request, reply) =>
      reply.code(201).send(serviceOf(await commands.create(actorOfCaller(callerOf(request)), fieldsOf(request.body)))),
  );

  app.put(
    '/api/services/:serviceId',
    {
      config: { policy: { service: 'manage' } },
      schema: { tags, params, body: ServiceBody, response: { 200: serviceRef, ...problems(400, 401, 403, 404) } },
    },
    async (request) =>
      serviceOf(
        await commands.update(actorOfCaller(callerOf(request)), request.params.serviceId, fieldsOf(request.body)),
      ),
  );

  app.delete(
    '/api/services/:serviceId',
    {
      config: { policy: 'canAll' },
      schema: {
        tags,
        summary: 'Delete a service with its versions and entries',
        params,
        response: { 204: Type.Null(), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await commands.delete(actorOfCaller(callerOf(request)), request.params.serviceId);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/services/:serviceId/members',
    {
      config: { policy: { service: 'read' } },
      schema: { tags, params, response: { 200: Type.Array(memberRef), ...problems(400, 401, 403, 404) } },
    },
    async (request) => (await queries.members(request.params.serviceId)).map(memberOf),
  );

  app.post(
    '/api/services/:serviceId/members',
    {
      config: { policy: { service: 'manage' }, changesAccess: true },
      schema: {
        tags,
        summary: 'Make a user (id or e-mail; a username with the Local provider) a member with a role',
        params,
        body: Type.Object({
          userId: Type.String({ minLength: 1, maxLength: 320, examples: ['ada'] }),
          role: Type.Optional(Role),
        }),
        response: { 201: memberRef, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { userId, role } = request.body;
      const member = await commands.addMember(actorOfCaller(callerOf(request)), request.params.serviceId, {
        userId,
        role: role ?? 'editor',
      });
      return reply.code(201).send(memberOf(member));
    },
  );

  app.put(
    '/api/services/:serviceId/members/:userId',
    {
      config: { policy: { service: 'manage' }, changesAccess: true },
      schema: {
        tags,
        summary: "Change a member's role",
        params: Type.Object({ serviceId: Uuid, userId: Type.String({ minLength: 1, maxLength: 320 }) }),
        body: Type.Object({ role: Role }),
        response: { 200: memberRef, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) =>
      memberOf(
        await commands.setMemberRole(
          actorOfCaller(callerOf(request)),
          request.params.serviceId,
          request.params.userId,
          request.body.role,
        ),
      ),
  );

  app.delete(
    '/api/services/:serviceId/members/:userId',
    {
      config: { policy: { service: 'manage' }, changesAccess: true },
      schema: {
        tags,
        params: Type.Object({ serviceId: Uuid, userId: Type.String({ minLength: 1, maxLength: 320 }) }),
        response: { 204: Type.Null(), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await commands.removeMember(actorOfCaller(callerOf(request)), request.params.serviceId, request.params.userId);
      return reply.code(204).send(null);
    },
  );
};

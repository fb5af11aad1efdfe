import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  redactSecrets,
  type ChangeRequestRecord,
  type ChangeRequestStatus,
  type EntryRecord,
  type SecretCipher,
} from '../../core/index.js';
import { microsToIso } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import { Nullable, problems, Timestamp, Uuid } from '../../platform/http/schemas.js';
import { callerOf } from '../auth/index.js';
import { MAX_REQUESTED_CHANGES, type ChangeRequestCommands } from './change-request-commands.js';
import type { ChangeRequestQueries } from './change-request-queries.js';
import { RolloutSettings } from '../rollouts/index.js';

const STATUSES: readonly ChangeRequestStatus[] = ['open', 'approved', 'applied', 'stale', 'rejected', 'withdrawn'];
const Status = Type.Union(
  [
    Type.Literal('open'),
    Type.Literal('approved'),
    Type.Literal('applied'),
    Type.Literal('stale'),
    Type.Literal('rejected'),
    Type.Literal('withdrawn'),
  ],
  {
    description:
      'open (waiting for approvals), approved (may be applied), applied, stale (an entry changed since: nothing applied), rejected, withdrawn',
  },
);

const ChangeSchema = Type.Object({
  id: Uuid,
  rawValue: Nullable(Type.String({ maxLength: 256 * 1024 })),
  generation: Type.Integer({ minimum: 0, description: 'The generation of the entry the change was made from' }),
});

const ChangeRequestSchema = Type.Object(
  {
    id: Uuid,
    serviceId: Uuid,
    versionId: Uuid,
    title: Type.String(),
    description: Nullable(Type.String()),
    status: Status,
    author: Type.String({ description: 'The user id (or `apikey:<id>`) who opened it' }),
    authorName: Nullable(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    closedBy: Nullable(Type.String()),
    rolloutId: Nullable(
      Type.String({ description: 'The rollout it started, when it was applied as one (docs/rollouts.md)' }),
    ),
    editors: Type.Array(Type.String(), {
      description: 'Everyone who edited the request after it was opened; like its author, none of them may approve it',
    }),
    requiredApprovals: Type.Integer(),
    changes: Type.Array(
      Type.Object({
        ...ChangeSchema.properties,
        key: Nullable(Type.String({ description: 'The entry key (null when the entry was deleted since)' })),
        currentValue: Nullable(Type.String({ description: "The entry's value now (null for a secret)" })),
        isSecret: Type.Optional(Type.Boolean({ description: 'A secret: rawValue is left out (null)' })),
        redacted: Type.Optional(Type.Boolean()),
        fingerprint: Type.Optional(Nullable(Type.String({ description: "HMAC-SHA256 of the secret's new value" }))),
        currentGeneration: Nullable(Type.Integer()),
      }),
    ),
    approvals: Type.Array(
      Type.Object({ userId: Type.String(), userName: Nullable(Type.String()), approvedAt: Timestamp }),
    ),
  },
  { $id: 'ChangeRequest' },
);
const changeRequestRef = Type.Unsafe<ReturnType<typeof viewOf>>({ $ref: 'ChangeRequest#' });

const Body = Type.Object({
  title: Type.String({ minLength: 1, maxLength: 200, examples: ['Raise the payment timeout'] }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 4000 }))),
  changes: Type.Array(ChangeSchema, { minItems: 1, maxItems: MAX_REQUESTED_CHANGES }),
});

function viewOf(
  r: ChangeRequestRecord,
  entries: ReadonlyMap<string, EntryRecord>,
  requiredApprovals: number,
  cipher: SecretCipher,
) {
  return {
    id: r.id,
    serviceId: r.serviceId,
    versionId: r.versionId,
    title: r.title,
    description: r.description,
    status: r.status,
    author: r.authorId,
    authorName: r.authorName,
    createdAt: microsToIso(r.createdAt),
    updatedAt: microsToIso(r.updatedAt),
    closedBy: r.closedBy,
    rolloutId: r.rolloutId,
    editors: r.editors,
    requiredApprovals,
    changes: r.changes.map((c) => {
      const entry = entries.get(c.id);
      return redactSecrets(
        {
          ...c,
          key: entry?.key ?? null,
          currentValue: entry?.isSecret ? null : (entry?.rawValue ?? null),
          currentGeneration: entry?.generation ?? null,
        },
        cipher,
      );
    }),
    approvals: r.approvals.map((a) => ({
      userId: a.userId,
      userName: a.userName,
      approvedAt: microsToIso(a.approvedAt),
    })),
  };
}

export interface ChangeRequestRoutesOptions {
  readonly commands: ChangeRequestCommands;
  readonly queries: ChangeRequestQueries;
  readonly requiredApprovals: number;
  readonly cipher: SecretCipher;
}

/** Change requests of a version: open, edit, approve, apply, reject, withdraw; list and read them. */
export const changeRequestRoutes: FastifyPluginAsyncTypebox<ChangeRequestRoutesOptions> = async (
  app,
  { commands, queries, requiredApprovals, cipher },
) => {
  app.addSchema(ChangeRequestSchema);
  const tags = ['change requests'];
  const base = '/api/configversions/:serviceId/:versionId/changerequests';
  const params = Type.Object({ serviceId: Uuid, versionId: Uuid });
  const oneParams = Type.Object({ serviceId: Uuid, versionId: Uuid, changeRequestId: Uuid });

  const show = async (request: ChangeRequestRecord) =>
    viewOf(request, await queries.entriesOf(request.versionId), requiredApprovals, cipher);

  app.post(
    base,
    {
      config: { policy: { service: 'write' } },
      schema: {
        tags,
        summary: 'Open a change request: values to set, reviewed before they apply',
        description: `Each change names an entry, its new value and the generation it was made from (409 when an entry changed since). Another editor or owner approves it (${requiredApprovals} approval(s), Versions:RequiredApprovals); then it is applied as one batch. The only way to change a protected version; a restore, an import or a promotion becomes one from the value sets of its dry run (each planned change's \`current.id\`, \`current.generation\` and \`next.value\`).`,
        params,
        body: Body,
        response: { 201: changeRequestRef, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { title, description, changes } = request.body;
      const created = await commands.create(callerOf(request), request.params, {
        title,
        description: description ?? null,
        changes,
      });
      return reply.code(201).send(await show(created));
    },
  );

  app.get(
    base,
    {
      config: { policy: { service: 'read' } },
      schema: {
        tags,
        summary: 'The change requests of a version, newest first',
        params,
        querystring: Type.Object({ status: Type.Optional(Status) }),
        response: { 200: Type.Array(changeRequestRef), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const status = request.query.status;
      if (status !== undefined && !STATUSES.includes(status)) throw AppError.invalid('Unknown status.');
      const { requests, entries } = await queries.list(request.params, status ?? null);
      return requests.map((r) => viewOf(r, entries, requiredApprovals, cipher));
    },
  );

  app.get(
    `${base}/:changeRequestId`,
    {
      config: { policy: { service: 'read' } },
      schema: { tags, params: oneParams, response: { 200: changeRequestRef, ...problems(400, 401, 403, 404) } },
    },
    async (request) => {
      const { serviceId, versionId, changeRequestId } = request.params;
      const found = await queries.get({ serviceId, versionId }, changeRequestId);
      return viewOf(found.request, found.entries, requiredApprovals, cipher);
    },
  );

  app.put(
    `${base}/:changeRequestId`,
    {
      config: { policy: { service: 'write' } },
      schema: {
        tags,
        summary: 'Edit a change request (its author or an owner); new changes drop every approval',
        params: oneParams,
        body: Body,
        response: { 200: changeRequestRef, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { serviceId, versionId, changeRequestId } = request.params;
      const { title, description, changes } = request.body;
      const updated = await commands.update(callerOf(request), { serviceId, versionId }, changeRequestId, {
        title,
        description: description ?? null,
        changes,
      });
      return show(updated);
    },
  );

  const step = (
    name: 'approve' | 'reject' | 'withdraw',
    summary: string,
    run: (
      id: string,
      target: { serviceId: string; versionId: string },
      caller: ReturnType<typeof callerOf>,
    ) => Promise<ChangeRequestRecord>,
  ) =>
    app.post(
      `${base}/:changeRequestId/${name}`,
      {
        config: { policy: { service: name === 'withdraw' ? 'read' : 'write' } },
        schema: {
          tags,
          summary,
          params: oneParams,
          response: { 200: changeRequestRef, ...problems(400, 401, 403, 404, 409) },
        },
      },
      async (request) => {
        const { serviceId, versionId, changeRequestId } = request.params;
        return show(await run(changeRequestId, { serviceId, versionId }, callerOf(request)));
      },
    );

  step('approve', 'Approve a change request (an editor or owner other than its author)', (id, target, caller) =>
    commands.approve(caller, target, id),
  );
  app.post(
    `${base}/:changeRequestId/apply`,
    {
      config: { policy: { service: 'write' } },
      // A POST without a body (every client before rollouts) applies the request as one batch.
      preValidation: async (request) => {
        request.body ??= {};
      },
      schema: {
        tags,
        summary:
          'Apply an approved change request as one batch, or as a rollout (409, and stale, when an entry changed since; nothing applied)',
        description:
          'With `{"rollout": {"steps", "stepSeconds", "bakeSeconds", …}}` the approved values are rolled out to the instances step by step (docs/rollouts.md) instead of set at once: the only way to roll out on a protected version.',
        params: oneParams,
        body: Type.Object({ rollout: Type.Optional(RolloutSettings) }),
        response: { 200: changeRequestRef, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { serviceId, versionId, changeRequestId } = request.params;
      const rollout = request.body.rollout ?? null;
      return show(await commands.apply(callerOf(request), { serviceId, versionId }, changeRequestId, rollout));
    },
  );
  step('reject', 'Reject a change request (an editor or owner)', (id, target, caller) =>
    commands.close(caller, target, id, 'reject'),
  );
  step('withdraw', 'Withdraw a change request (its author)', (id, target, caller) =>
    commands.close(caller, target, id, 'withdraw'),
  );
};

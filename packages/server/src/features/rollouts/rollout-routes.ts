import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ROLLOUT_STATUSES, type RolloutStatus, type UnitOfWork } from '../../core/index.js';
import { AppError } from '../../platform/errors.js';
import { Nullable, problems, Timestamp, Uuid } from '../../platform/http/schemas.js';
import { callerOf } from '../auth/index.js';
import { ENTRY_LIMITS } from '../entries/index.js';
import type { RolloutAction, RolloutCommands } from './rollout-commands.js';
import { MAX_BAKE_SECONDS, MAX_ROLLOUT_CHANGES, MAX_STEP_SECONDS, MAX_STEPS } from './rollout-input.js';
import { rolloutView, type RolloutView } from './rollout-view.js';

const Status = Type.Union(
  ROLLOUT_STATUSES.map((s) => Type.Literal(s)),
  { description: 'scheduled, running, paused, baking (the 100 % step), completed, rolled_back' },
);

const Labels = Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.String({ maxLength: 200 }));

const ChangeSchema = Type.Object({
  id: Uuid,
  rawValue: Nullable(Type.String({ maxLength: ENTRY_LIMITS.rawValue })),
  generation: Type.Integer({ minimum: 0, description: 'The generation of the entry the new value is based on' }),
});

/** A rollout's settings, as POST …/rollouts and a change request's `{"rollout": …}` take them. */
export const RolloutSettings = Type.Object({
  steps: Type.Array(Type.Number(), {
    minItems: 1,
    maxItems: MAX_STEPS,
    description: 'Strictly increasing percentages of the instances, ending at 100',
    examples: [[10, 50, 100]],
  }),
  stepSeconds: Type.Integer({ minimum: 1, maximum: MAX_STEP_SECONDS, description: 'Time between steps' }),
  bakeSeconds: Type.Integer({
    minimum: 0,
    maximum: MAX_BAKE_SECONDS,
    description: 'Time at 100 % before the new values become the values',
  }),
  startAt: Type.Optional(Nullable(Type.String({ description: 'ISO time, at most 90 days ahead; null = now' }))),
  match: Type.Optional(
    Nullable(Type.Object({ labels: Type.Optional(Labels) }, { description: 'Only instances with all these labels' })),
  ),
  rollback: Type.Optional(
    Nullable(
      Type.Object({
        disconnectedShare: Type.Optional(
          Type.Number({
            description:
              'Roll back when this share (and at least 2) of the instances that got the new values disconnect and stay away; default 0.2',
          }),
        ),
      }),
    ),
  ),
});

const RolloutSchema = Type.Object(
  {
    id: Uuid,
    serviceId: Uuid,
    versionId: Uuid,
    status: Status,
    changes: Type.Array(
      Type.Object({
        ...ChangeSchema.properties,
        key: Type.String(),
        isSecret: Type.Optional(Type.Boolean({ description: 'A secret: rawValue is left out (null)' })),
      }),
    ),
    steps: Type.Array(Type.Number()),
    step: Type.Integer({ description: 'The 0-based index of the current step in steps' }),
    percent: Type.Number({ description: 'The share of matching instances in now (0 before the start)' }),
    stepSeconds: Type.Integer(),
    bakeSeconds: Type.Integer(),
    startAt: Timestamp,
    stepStartedAt: Nullable(Timestamp),
    nextAt: Nullable(Timestamp),
    match: Type.Object({ labels: Labels }),
    rollback: Type.Object({ disconnectedShare: Type.Number() }),
    received: Type.Integer({ description: 'Instances that received the new values' }),
    gone: Type.Integer({ description: 'Of them, those disconnected now' }),
    createdBy: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    reason: Nullable(Type.String({ description: 'Why it was rolled back or promoted' })),
  },
  { $id: 'Rollout' },
);
const rolloutRef = Type.Unsafe<RolloutView>({ $ref: 'Rollout#' });

/** Rollouts of a version (docs/rollouts.md): start one, follow it, pause, resume, promote, roll back. */
export const rolloutRoutes: FastifyPluginAsyncTypebox<{ commands: RolloutCommands; uow: UnitOfWork }> = async (
  app,
  { commands, uow },
) => {
  app.addSchema(RolloutSchema);
  const tags = ['rollouts'];
  const base = '/api/configversions/:serviceId/:versionId/rollouts';
  const params = Type.Object({ serviceId: Uuid, versionId: Uuid });
  const oneParams = Type.Object({ serviceId: Uuid, versionId: Uuid, rolloutId: Uuid });

  const requireVersion = async (serviceId: string, versionId: string) => {
    if (!(await uow.read.versions.get(serviceId, versionId)))
      throw AppError.notFound(`Version ${versionId} was not found in service ${serviceId}.`);
  };

  app.post(
    base,
    {
      config: { policy: { service: 'write' } },
      schema: {
        tags,
        summary: 'Roll new values out to a growing share of the instances, step by step',
        description:
          'Instances in the rollout at a step get the new values (generation + 1); after the 100 % step and the bake time they become the values. The entries are locked meanwhile (409). On a protected version, only through an approved change request.',
        params,
        body: Type.Object({
          changes: Type.Array(ChangeSchema, { minItems: 1, maxItems: MAX_ROLLOUT_CHANGES }),
          ...RolloutSettings.properties,
        }),
        response: { 201: rolloutRef, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { serviceId, versionId } = request.params;
      const rollout = await commands.create(callerOf(request), serviceId, versionId, request.body);
      return reply.code(201).send(rolloutView(rollout));
    },
  );

  app.get(
    base,
    {
      config: { policy: { service: 'read' } },
      schema: {
        tags,
        summary: "A version's rollouts, newest first",
        params,
        querystring: Type.Object({ status: Type.Optional(Status) }),
        response: { 200: Type.Array(rolloutRef), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { serviceId, versionId } = request.params;
      await requireVersion(serviceId, versionId);
      const status = (request.query.status ?? null) as RolloutStatus | null;
      return (await uow.read.rollouts.list(versionId, status)).map(rolloutView);
    },
  );

  app.get(
    `${base}/:rolloutId`,
    {
      config: { policy: { service: 'read' } },
      schema: {
        tags,
        summary: 'One rollout',
        params: oneParams,
        response: { 200: rolloutRef, ...problems(401, 403, 404) },
      },
    },
    async (request) => {
      const { serviceId, versionId, rolloutId } = request.params;
      await requireVersion(serviceId, versionId);
      const rollout = await uow.read.rollouts.get(versionId, rolloutId);
      if (!rollout) throw AppError.notFound(`Rollout ${rolloutId} was not found in version ${versionId}.`);
      return rolloutView(rollout);
    },
  );

  const actions: [RolloutAction, string][] = [
    ['pause', 'Pause: instances keep what they have; no step is taken until resumed'],
    ['resume', 'Resume a paused rollout: its current step (or bake) is timed again from now'],
    ['promote', 'Skip to completed: the new values become the values at once'],
    ['rollback', 'Roll back: every instance that got a new value gets the old one back (generation + 2)'],
  ];
  for (const [action, summary] of actions) {
    app.post(
      `${base}/:rolloutId/${action}`,
      {
        config: { policy: { service: 'write' } },
        schema: { tags, summary, params: oneParams, response: { 200: rolloutRef, ...problems(401, 403, 404, 409) } },
      },
      async (request) => {
        const { serviceId, versionId, rolloutId } = request.params;
        return rolloutView(await commands.act(callerOf(request), serviceId, versionId, rolloutId, action));
      },
    );
  }

  app.post(
    `${base}/:rolloutId/alarm`,
    {
      config: { policy: { service: 'write' } },
      schema: {
        tags,
        summary: 'An alarm from monitoring: roll back at once, with its reason (an API key with the write scope)',
        params: oneParams,
        body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 500 }) }),
        response: { 200: rolloutRef, ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { serviceId, versionId, rolloutId } = request.params;
      const { reason } = request.body;
      return rolloutView(await commands.act(callerOf(request), serviceId, versionId, rolloutId, 'alarm', reason));
    },
  );
};

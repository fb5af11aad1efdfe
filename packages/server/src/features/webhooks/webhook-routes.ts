import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { actorOfCaller, type DeliveryRecord, type WebhookFields, type WebhookRecord } from '../../core/index.js';
import { microsToIso } from '../../platform/clock.js';
import { Nullable, problems, Timestamp, Uuid } from '../../platform/http/schemas.js';
import { callerOf } from '../auth/index.js';
import { EndpointDescription, endpointUrl, signingSecret } from './endpoints.js';
import type { Webhooks } from './webhooks.js';

const EventType = Type.Union(
  [
    Type.Literal('entry.changed'),
    Type.Literal('version.created'),
    Type.Literal('version.deleted'),
    Type.Literal('rollout.started'),
    Type.Literal('rollout.completed'),
    Type.Literal('rollout.rolled_back'),
  ],
  {
    description:
      'entry.changed (values, entries), version.created, version.deleted, rollout.started, rollout.completed, rollout.rolled_back (data: the rollout)',
  },
);

const webhookFields = {
  url: endpointUrl(
    'An http(s) URL; hosts on loopback, private or link-local networks are refused',
    'https://hooks.example.com/realtime-config',
  ),
  description: Type.Optional(EndpointDescription),
  eventTypes: Type.Optional(
    Nullable(Type.Array(EventType, { minItems: 1, maxItems: 3, description: 'Null (the default): every type' })),
  ),
  versionIds: Type.Optional(
    Nullable(Type.Array(Uuid, { minItems: 1, maxItems: 100, description: 'Null (the default): every version' })),
  ),
  keyPrefix: Type.Optional(
    Nullable(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'Only changes of keys starting with it (version events ignore it); null: every key',
      }),
    ),
  ),
  enabled: Type.Optional(Type.Boolean({ description: 'Default true; a disabled webhook sends nothing' })),
};
const WebhookBody = Type.Object(webhookFields);

const WebhookSchema = Type.Object(
  {
    id: Uuid,
    serviceId: Uuid,
    url: Type.String(),
    description: Nullable(Type.String()),
    eventTypes: Nullable(Type.Array(EventType)),
    versionIds: Nullable(Type.Array(Uuid)),
    keyPrefix: Nullable(Type.String()),
    enabled: Type.Boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Webhook' },
);
const webhookRef = Type.Unsafe<ReturnType<typeof webhookOf>>({ $ref: 'Webhook#' });

const Secret = signingSecret('deliveries');

const DeliverySchema = Type.Object(
  {
    id: Type.String({ description: 'The `webhook-id` header of every attempt' }),
    eventType: EventType,
    createdAt: Timestamp,
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
    attempts: Type.Array(
      Type.Object({
        at: Timestamp,
        statusCode: Nullable(Type.Integer()),
        durationMs: Type.Integer(),
        error: Nullable(Type.String()),
      }),
      { description: 'Oldest first' },
    ),
    nextAttemptAt: Nullable(Timestamp),
  },
  { $id: 'WebhookDelivery' },
);
const deliveryRef = Type.Unsafe<ReturnType<typeof deliveryOf>>({ $ref: 'WebhookDelivery#' });

function webhookOf(w: WebhookRecord) {
  return {
    id: w.id,
    serviceId: w.serviceId,
    url: w.url,
    description: w.description,
    eventTypes: w.eventTypes && [...w.eventTypes],
    versionIds: w.versionIds && [...w.versionIds],
    keyPrefix: w.keyPrefix,
    enabled: w.enabled,
    createdAt: microsToIso(w.createdAt),
    updatedAt: microsToIso(w.updatedAt),
  };
}

function deliveryOf(d: DeliveryRecord) {
  return {
    id: d.id,
    eventType: d.eventType,
    createdAt: microsToIso(d.createdAt),
    status: d.status,
    attempts: d.attempts.map((a) => ({ ...a, at: microsToIso(a.at) })),
    nextAttemptAt: d.status === 'pending' && d.nextAttemptAt !== null ? microsToIso(d.nextAttemptAt) : null,
  };
}

const fieldsOf = (body: Static<typeof WebhookBody>): WebhookFields => ({
  url: body.url,
  description: body.description ?? null,
  eventTypes: body.eventTypes ?? null,
  versionIds: body.versionIds ?? null,
  keyPrefix: body.keyPrefix ?? null,
  enabled: body.enabled ?? true,
});

/**
 * Webhooks of a service: signed HTTP deliveries (Standard Webhooks) of its committed changes, and
 * their delivery log. Managed by the service's owners (and canAll users).
 */
export const webhookRoutes: FastifyPluginAsyncTypebox<{ webhooks: Webhooks }> = async (app, { webhooks }) => {
  app.addSchema(WebhookSchema);
  app.addSchema(DeliverySchema);
  const tags = ['webhooks'];
  const base = '/api/services/:serviceId/webhooks';
  const params = Type.Object({ serviceId: Uuid });
  const oneParams = Type.Object({ serviceId: Uuid, webhookId: Uuid });
  const config = { policy: { service: 'manage' as const } };
  // Creating a webhook or rotating its secret mints a signing secret: a signed-in session only.
  const mintsSecret = { ...config, changesAccess: true };

  app.get(
    base,
    {
      config,
      schema: {
        tags,
        summary: 'The webhooks of a service, oldest first (never their secrets)',
        params,
        response: { 200: Type.Array(webhookRef), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => (await webhooks.list(request.params.serviceId)).map(webhookOf),
  );

  app.post(
    base,
    {
      config: mintsSecret,
      schema: {
        tags,
        summary: 'Create a webhook; its signing secret is shown only in this answer',
        description:
          'Every committed change the webhook wants (`eventTypes`, `versionIds`, `keyPrefix`) becomes one delivery, written in the same transaction as the change: an HTTP POST with the Standard Webhooks headers `webhook-id`, `webhook-timestamp` and `webhook-signature`. A 2xx within 10 s is success; anything else is retried on Webhooks:RetrySchedule; 410 disables the webhook. See docs/webhooks.md.',
        params,
        body: WebhookBody,
        response: {
          201: Type.Object({ ...WebhookSchema.properties, secret: Secret }),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const { webhook, secret } = await webhooks.create(
        actorOfCaller(callerOf(request)),
        request.params.serviceId,
        fieldsOf(request.body),
      );
      return reply.code(201).send({ ...webhookOf(webhook), secret });
    },
  );

  app.get(
    `${base}/:webhookId`,
    { config, schema: { tags, params: oneParams, response: { 200: webhookRef, ...problems(400, 401, 403, 404) } } },
    async (request) => webhookOf(await webhooks.get(request.params.serviceId, request.params.webhookId)),
  );

  app.put(
    `${base}/:webhookId`,
    {
      config,
      schema: {
        tags,
        summary: 'Replace a webhook (the same body as creating it; a field left out takes its default)',
        params: oneParams,
        body: WebhookBody,
        response: { 200: webhookRef, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { serviceId, webhookId } = request.params;
      const actor = actorOfCaller(callerOf(request));
      return webhookOf(await webhooks.replace(actor, serviceId, webhookId, fieldsOf(request.body)));
    },
  );

  app.delete(
    `${base}/:webhookId`,
    {
      config,
      schema: {
        tags,
        summary: 'Delete a webhook and its delivery log',
        params: oneParams,
        response: { 204: Type.Null(), ...problems(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await webhooks.delete(actorOfCaller(callerOf(request)), request.params.serviceId, request.params.webhookId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${base}/:webhookId/rotate-secret`,
    {
      config: mintsSecret,
      schema: {
        tags,
        summary: 'Give a webhook a new secret; for 24 hours deliveries carry signatures by both',
        params: oneParams,
        response: { 200: Type.Object({ secret: Secret }), ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      secret: await webhooks.rotateSecret(
        actorOfCaller(callerOf(request)),
        request.params.serviceId,
        request.params.webhookId,
      ),
    }),
  );

  app.get(
    `${base}/:webhookId/deliveries`,
    {
      config,
      schema: {
        tags,
        summary: 'The delivery log of a webhook, newest first',
        params: oneParams,
        querystring: Type.Object({
          // Query strings are text (no type coercion in this API): a number of 1 to 500.
          pageSize: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,2}$', description: '1–500, default 20' })),
          pageToken: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: {
          200: Type.Object({ deliveries: Type.Array(deliveryRef), nextPageToken: Type.String() }),
          ...problems(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { serviceId, webhookId } = request.params;
      const { pageSize, pageToken } = request.query;
      const page = await webhooks.deliveries(serviceId, webhookId, {
        pageSize: pageSize === undefined ? null : Number(pageSize),
        pageToken: pageToken ?? null,
      });
      return { deliveries: page.entities.map(deliveryOf), nextPageToken: page.nextPageToken };
    },
  );

  app.post(
    `${base}/:webhookId/deliveries/:deliveryId/redeliver`,
    {
      config,
      schema: {
        tags,
        summary: 'Send a delivery again, with the same webhook-id, as one more attempt of it',
        params: Type.Object({ serviceId: Uuid, webhookId: Uuid, deliveryId: Uuid }),
        response: { 202: Type.Null(), ...problems(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { serviceId, webhookId, deliveryId } = request.params;
      await webhooks.redeliver(serviceId, webhookId, deliveryId);
      return reply.code(202).send(null);
    },
  );
};

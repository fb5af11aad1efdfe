import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { microsToIso } from '../../platform/clock.js';
import { dictionary } from '../../platform/dictionary.js';
import { Nullable, problems, Timestamp, Uuid } from '../../platform/http/schemas.js';
import { MAX_LISTED_INSTANCES, type FleetQueries } from './fleet-queries.js';

const InstanceSchema = Type.Object(
  {
    instanceId: Nullable(Type.String({ description: 'x-rc-instance-id of the stream; null when not sent' })),
    sdk: Nullable(Type.String({ description: 'x-rc-sdk of the stream, e.g. @realtime-config/client/1.0.0' })),
    userAgent: Nullable(Type.String()),
    address: Nullable(Type.String({ description: 'The peer address of the connection' })),
    labels: Type.Record(Type.String(), Type.String(), { description: 'x-rc-labels of the stream' }),
    serverInstance: Type.String({ description: 'The server instance holding the stream' }),
    connectedAt: Timestamp,
    lastEventTimestamp: Nullable({ ...Timestamp, description: 'The newest change sent on the stream' }),
    upToDate: Type.Boolean({
      description:
        'No change the stream may receive is newer than what it has (a stream without secrets is not behind after a secret changed)',
    }),
    rollout: Nullable(
      Type.Object(
        {
          id: Uuid,
          in: Type.Boolean({ description: 'The instance gets the rollout’s new values at its current step' }),
        },
        { description: "The version's newest running, baking or paused rollout; null when none runs" },
      ),
    ),
  },
  { $id: 'Instance' },
);

const InstancesSchema = Type.Object({
  instances: Type.Array(Type.Unsafe<unknown>({ $ref: 'Instance#' }), {
    description: `The oldest ${MAX_LISTED_INSTANCES} open streams at most, oldest first`,
  }),
  latestTimestamp: Nullable({
    ...Timestamp,
    description: "The version's newest entry change (what its streams are sent; a version update does not count)",
  }),
  total: Type.Integer({ description: 'Every open stream of the version, listed or not' }),
  upToDate: Type.Integer({ description: 'Of every open stream, those up to date' }),
});

/** GET …/instances: the open change streams of a version on every server instance. */
export const fleetRoutes: FastifyPluginAsyncTypebox<{ queries: FleetQueries }> = async (app, { queries }) => {
  app.addSchema(InstanceSchema);
  app.get(
    '/api/configversions/:serviceId/:versionId/instances',
    {
      config: { policy: { service: 'read' } },
      schema: {
        tags: ['versions'],
        summary: 'The instances connected to a version (open StartSubscribe streams) and whether each is up to date',
        params: Type.Object({ serviceId: Uuid, versionId: Uuid }),
        response: { 200: InstancesSchema, ...problems(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const result = await queries.instances(request.params.serviceId, request.params.versionId);
      return {
        instances: result.instances.map((i) => ({
          instanceId: i.instanceId,
          sdk: i.sdk,
          userAgent: i.userAgent,
          address: i.address,
          labels: dictionary(i.labels),
          serverInstance: i.serverInstance,
          connectedAt: microsToIso(i.connectedAt),
          lastEventTimestamp: i.lastEvent === null ? null : microsToIso(i.lastEvent),
          upToDate: i.upToDate,
          rollout: i.rollout,
        })),
        latestTimestamp: result.latestTimestamp === null ? null : microsToIso(result.latestTimestamp),
        total: result.total,
        upToDate: result.upToDate,
      };
    },
  );
};

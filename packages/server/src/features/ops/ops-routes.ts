import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { LogLevel } from 'fastify';
import { Type } from 'typebox';
import { problemFor, sendProblem } from '../../platform/http/problem-details.js';
import type { Metrics } from './metrics.js';

export interface OpsRoutesOptions {
  metrics: Metrics;
  /** Resolves when the database answers. */
  ping: () => Promise<void>;
  /**
   * Where the server is in its life: still waiting for its database at start, serving, or shutting
   * down (load balancers should stop sending traffic).
   */
  readiness: () => 'waiting-for-database' | 'started' | 'shutting-down';
  /**
   * Why a follower (docs/regions.md) should not take traffic now: its standby's replay is further
   * behind than Database:MaxFollowerLagSeconds. Null while it is not.
   */
  lagging?: () => string | null;
}

const READY_TIMEOUT_MS = 2000;

/** /healthz, /readyz and /metrics: no sign-in, no request logging noise. */
export const opsRoutes: FastifyPluginAsyncTypebox<OpsRoutesOptions> = async (app, options) => {
  const tags = ['operations'];
  const config = { policy: 'public' as const, beforeStart: true };
  // No per-request info lines for probes, but never louder than the configured level (a route's
  // logLevel replaces it, so a plain 'warn' would make a 'silent' or 'error' server log warnings).
  const logLevel = (['trace', 'debug', 'info'].includes(app.log.level) ? 'warn' : app.log.level) as LogLevel;

  app.get(
    '/healthz',
    { config, logLevel, schema: { tags, response: { 200: Type.Object({ status: Type.String() }) } } },
    async () => ({ status: 'ok' }),
  );

  app.get('/readyz', { config, logLevel, schema: { tags } }, async (_request, reply) => {
    const state = options.readiness();
    if (state === 'shutting-down') return sendProblem(reply, problemFor('UNAVAILABLE', 'The server is shutting down.'));
    if (state === 'waiting-for-database') {
      return sendProblem(reply, problemFor('UNAVAILABLE', 'The server is starting: it is waiting for its database.'));
    }
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        options.ping(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('database ping timed out')), READY_TIMEOUT_MS);
        }),
      ]);
      const lagging = options.lagging?.() ?? null;
      if (lagging !== null) return sendProblem(reply, problemFor('UNAVAILABLE', lagging));
      return { status: 'ready' };
    } catch (error) {
      _request.log.warn({ err: error }, 'readiness check failed');
      return sendProblem(reply, problemFor('UNAVAILABLE', 'The database does not answer.'));
    } finally {
      clearTimeout(timer);
    }
  });

  app.get('/metrics', { config, logLevel, schema: { tags, hide: true } }, async (_request, reply) =>
    reply.type(options.metrics.registry.contentType).send(await options.metrics.registry.metrics()),
  );
};

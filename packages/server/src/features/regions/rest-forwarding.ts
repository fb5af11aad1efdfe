import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { Agent, request as send } from 'undici';
import { dictionary, type Dictionary } from '../../platform/dictionary.js';
import {
  awaitReplay,
  FORWARD_TIMEOUT_MS,
  FORWARDED_BY_HEADER,
  primaryUnreachable,
  refusal,
  WAL_POSITION_HEADER,
  type ForwardingOptions,
} from './primary-forwarding.js';

const READING_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Headers of one connection (RFC 9110 §7.6.1) and HTTP/2 pseudo-headers: never forwarded either way. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'http2-settings',
]);

function writesOf(request: FastifyRequest): boolean {
  return request.routeOptions.config.writes ?? !READING_METHODS.has(request.method);
}

/**
 * The request as the client sent it, for the primary: every end-to-end header (the credentials,
 * cookie, content type, origin, the client's Host, so the primary's same-origin rule and sign-in
 * redirects see the address the client used), the client's address appended to X-Forwarded-For
 * (believed by a primary that lists the followers in Server:TrustProxy), the request id, and the
 * forwarded-by mark.
 */
function forwardedHeaders(request: FastifyRequest, serverInstance: string): Dictionary<string | string[]> {
  const headers = dictionary<string | string[]>();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name.startsWith(':') || HOP_BY_HOP.has(name)) continue;
    headers[name] = value;
  }
  const client = request.raw.socket?.remoteAddress;
  const chain = request.headers['x-forwarded-for'];
  if (client) headers['x-forwarded-for'] = chain ? `${String(chain)}, ${client}` : client;
  headers['x-forwarded-proto'] ??= request.protocol;
  headers.host = request.host;
  headers['x-request-id'] = request.id;
  headers[FORWARDED_BY_HEADER] = serverInstance;
  return headers;
}

/**
 * Regions (docs/regions.md), on the REST API and the sign-in routes. On a follower, a request whose
 * route writes is forwarded as it is to Server:PrimaryUrl, before sessions, credentials or the body
 * are looked at here, and the primary's status, headers (set-cookie included) and body are the
 * answer; without a primary URL it answers 503 saying why. Register it before the auth plugin.
 */
export const forwardWritesToPrimary = fp<ForwardingOptions>(async (app: FastifyInstance, options) => {
  const agent = new Agent({
    connect: { timeout: 5000 },
    headersTimeout: FORWARD_TIMEOUT_MS,
    bodyTimeout: FORWARD_TIMEOUT_MS,
  });
  app.addHook('onClose', async () => agent.close());

  const forward = async (request: FastifyRequest, reply: FastifyReply, primaryUrl: string): Promise<FastifyReply> => {
    const hasBody =
      request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined;
    let answer;
    try {
      answer = await send(`${primaryUrl}${request.url}`, {
        method: request.method as 'POST',
        headers: forwardedHeaders(request, options.serverInstance),
        // Streamed as it arrives: Fastify has not read the body yet, the primary applies its limits.
        body: hasBody ? request.raw : null,
        dispatcher: agent,
      });
    } catch (error) {
      throw primaryUnreachable(primaryUrl, error);
    }
    const position = answer.headers[WAL_POSITION_HEADER];
    await awaitReplay(options, Array.isArray(position) ? position[0] : position);
    void reply.code(answer.statusCode);
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name) || name === WAL_POSITION_HEADER) continue;
      void reply.header(name, value);
    }
    return reply.send(answer.body);
  };

  app.addHook('onRequest', async (request, reply) => {
    // Unmatched paths answer 404 here; probes, reads and the console are served from the standby.
    if (!options.role.follower || request.routeOptions.url === undefined || !writesOf(request)) return;
    const forwardedBy = request.headers[FORWARDED_BY_HEADER];
    const refused = refusal(options.role, Array.isArray(forwardedBy) ? forwardedBy[0] : forwardedBy);
    if (refused) throw refused;
    return forward(request, reply, options.role.primaryUrl as string);
  });
});

/**
 * The primary's side: an answer to a forwarded request carries the primary's WAL position, taken
 * after everything the request wrote (its session too), so the follower can wait for its standby to
 * replay it. Register it after the auth plugin: its onSend hook must run after the session is saved.
 */
export const answerForwardedWrites = fp<ForwardingOptions>(async (app: FastifyInstance, options) => {
  app.addHook('onSend', async (request, reply, payload) => {
    const { positions, role } = options;
    if (!positions || role.follower || request.headers[FORWARDED_BY_HEADER] === undefined) return payload;
    try {
      void reply.header(WAL_POSITION_HEADER, await positions.current());
    } catch (err) {
      options.logger.warn({ err }, 'the WAL position for a forwarded request could not be read');
    }
    return payload;
  });
});

import { randomUUID } from 'node:crypto';
import helmet from '@fastify/helmet';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import { installProblemDetails, problemFor, sendProblem } from './problem-details.js';
import { rejectIllFormedText } from './reject-ill-formed-text.js';
import { ProblemDetailsSchema } from './schemas.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served while the server is still starting (waiting for its database): health and metrics. */
    beforeStart?: boolean;
    /**
     * Whether the route may change anything. A follower (docs/regions.md) sends such a request to
     * the primary before anything of it runs, and serves the others from its standby. Default: true
     * for POST, PUT, PATCH and DELETE, false for GET, HEAD and OPTIONS. A POST that only reads (a
     * search, an evaluation) says `writes: false`; a GET that writes (a sign-in redirect) `writes: true`.
     */
    writes?: boolean;
  }
}

export interface HttpAppOptions {
  readonly logger: Logger;
  /** Server:TrustProxy */
  readonly trustProxy: readonly string[];
  /** TLS is served: browsers may be told to upgrade. */
  readonly tls: boolean;
  /** False until the server has its database (migrations, seeding): other routes answer 503. */
  readonly isStarted: () => boolean;
  /** Counts each answered request (method and route labels are bounded). */
  readonly onResponse: (labels: { method: string; route: string; status: string }, seconds: number) => void;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;
const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
/** JSON bodies up to 1 MiB (docs/rest-api.md, Limits). */
const BODY_LIMIT = 1024 * 1024;

/**
 * The Fastify instance every feature registers its routes on, with what all routes share: request
 * ids, problem details for every failure, the text rules, security headers, OpenAPI, metrics, and
 * the gate that answers 503 until the server has started.
 */
export async function createHttpApp(options: HttpAppOptions): Promise<FastifyInstance> {
  const fastify = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    // One line per request, written in onResponse below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT,
    genReqId: (req) => {
      const header = req.headers['x-request-id'];
      return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
    },
    ajv: { customOptions: { coerceTypes: false, allErrors: true, removeAdditional: false } },
    // Member ids may be e-mail addresses up to 320 characters.
    routerOptions: { maxParamLength: 512 },
    // Only the configured reverse proxies may tell us the client's protocol, host and address.
    trustProxy: options.trustProxy.length > 0 ? [...options.trustProxy] : false,
    // The router's own failures (a malformed %-escape, an over-long parameter) come here, not to the
    // error handler; they get problem details like everything else.
    frameworkErrors: (error, _request, reply) => {
      const code = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'URI_TOO_LONG' : 'INVALID_ARGUMENT';
      const detail = code === 'URI_TOO_LONG' ? 'A path segment is too long.' : 'The request URL is malformed.';
      void sendProblem(reply, problemFor(code, detail));
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  installProblemDetails(fastify);
  // Only JSON bodies (and the SAML form posts, registered by that provider): anything else answers 415.
  fastify.removeContentTypeParser('text/plain');
  fastify.addSchema(ProblemDetailsSchema);

  // First of all hooks: nothing else runs for a request the server cannot serve yet.
  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
    if (!options.isStarted() && !request.routeOptions.config.beforeStart) {
      throw new AppError('UNAVAILABLE', 'The server is starting: it is waiting for its database.');
    }
  });
  fastify.addHook('preValidation', rejectIllFormedText);
  fastify.addHook('onResponse', async (request, reply) => {
    const method = HTTP_METHODS.has(request.method) ? request.method : 'OTHER';
    const route = request.routeOptions.url ?? 'unmatched';
    const ms = reply.elapsedTime;
    options.onResponse({ method, route, status: String(reply.statusCode) }, ms / 1000);
    // The path without its query string: sign-in callbacks carry one-time codes there.
    request.log.info(
      {
        method: request.method,
        path: request.url.split('?', 1)[0],
        status: reply.statusCode,
        ms: Math.round(ms * 100) / 100,
      },
      'request',
    );
  });

  await fastify.register(helmet, {
    global: true,
    // Plain HTTP is allowed for local development: only ask browsers to upgrade when we serve TLS.
    hsts: options.tls,
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: options.tls ? [] : null } },
  });
  await fastify.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Realtime Config management API',
        version: '1.0.0',
        description:
          'Services, config versions, entries, members, API keys, change requests, personal tokens and audit logs. Errors are RFC 9457 problem details.\n\nAuthenticate with the session cookie of a sign-in (the console), or with `Authorization: Bearer` and a personal access token (`rcp_…`, acts as you: POST /api/auth/tokens) or a service API key (`rck_…`, acts on its service within its scopes: POST /api/services/{serviceId}/apikeys). With the Jwt provider its access tokens are bearer tokens too.',
      },
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'rc_session', description: 'The session cookie of a sign-in' },
          personalToken: {
            type: 'http',
            scheme: 'bearer',
            description:
              'A personal access token, e.g. `Authorization: Bearer rcp_3kT…`: acts as the user who made it, with their roles',
          },
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description:
              'A service API key, e.g. `Authorization: Bearer rck_9fQ…`: acts only on its service, within its scopes (read, register, write, secrets)',
          },
        },
      },
      security: [{ session: [] }, { personalToken: [] }, { apiKey: [] }],
    },
    // Shared schemas keep their $id as their name (components.schemas.Entry, not def-5): the CLI and
    // the console name the types generated from this document after them.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  await fastify.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true });
  fastify.get('/api/openapi.json', { schema: { hide: true } }, async () => fastify.swagger());
  return fastify;
}

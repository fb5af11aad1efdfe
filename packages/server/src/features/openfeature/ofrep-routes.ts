import cors from '@fastify/cors';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { problems } from '../../platform/http/schemas.js';
import { callerOf } from '../auth/index.js';
import { contextOf, OfrepError } from './ofrep-context.js';
import type { FlagEvaluations } from './flag-evaluations.js';

export interface OfrepRouteOptions {
  readonly evaluations: FlagEvaluations;
  /** Ofrep:AllowedOrigins: the browser origins CORS admits; none, no CORS at all. */
  readonly allowedOrigins: readonly string[];
}

/** The header that names the version (a label), since OFREP's paths have no place for it. */
const VERSION_HEADER = 'x-rc-version';
const MAX_LABEL_CHARS = 200;

const Context = Type.Object(
  {
    targetingKey: Type.Optional(
      Type.String({ maxLength: 200, description: 'The instance id targeting sees (docs/targeting.md)' }),
    ),
  },
  {
    additionalProperties: true,
    description: 'targetingKey plays the instance id, every other string attribute a label; others are ignored',
  },
);
const RequestBody = Type.Object({ context: Type.Optional(Context) }, { additionalProperties: true });
const Metadata = Type.Object({ generation: Type.Integer(), versionId: Type.String() });
const Success = Type.Object({
  key: Type.String(),
  value: Type.Optional(Type.Unknown({ description: 'Absent for DEFAULT (the entry has no value): use your default' })),
  reason: Type.Union([
    Type.Literal('STATIC'),
    Type.Literal('TARGETING_MATCH'),
    Type.Literal('SPLIT'),
    Type.Literal('DEFAULT'),
  ]),
  variant: Type.String(),
  metadata: Metadata,
});
const Failure = Type.Object({
  key: Type.Optional(Type.String()),
  errorCode: Type.String({ description: 'FLAG_NOT_FOUND, PARSE_ERROR, INVALID_CONTEXT or GENERAL' }),
  errorDetails: Type.String(),
});
const VersionHeaders = Type.Object({
  [VERSION_HEADER]: Type.Optional(Type.String({ description: 'The version label to evaluate, e.g. 1.0.0' })),
});

function labelOf(request: FastifyRequest): string {
  const label = request.headers[VERSION_HEADER];
  if (typeof label !== 'string' || label === '') {
    throw new OfrepError(400, 'GENERAL', `The ${VERSION_HEADER} header must name the version (its label).`);
  }
  if (label.length > MAX_LABEL_CHARS || label.includes('\u0000')) {
    throw new OfrepError(
      400,
      'GENERAL',
      `${VERSION_HEADER} must be at most ${MAX_LABEL_CHARS} characters without U+0000.`,
    );
  }
  return label;
}

/** If-None-Match names this tag (or `*`): RFC 9110's weak comparison. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

const sendJson = (reply: FastifyReply, status: number, body: string): FastifyReply =>
  reply.code(status).type('application/json; charset=utf-8').send(body);

/**
 * OpenFeature Remote Evaluation Protocol (docs/openfeature.md): single and bulk evaluation with the
 * protocol's own error bodies. Registered under the prefix `/ofrep/v1`, so the CORS preflight route
 * stays inside it.
 */
export const ofrepRoutes: FastifyPluginAsyncTypebox<OfrepRouteOptions> = async (app, options) => {
  if (options.allowedOrigins.length > 0) {
    await app.register(cors, {
      origin: [...options.allowedOrigins],
      methods: ['POST'],
      exposedHeaders: ['ETag'],
      maxAge: 600,
    });
  }

  // OFREP's errors are `{ errorCode, errorDetails }`; authentication and everything else keeps the
  // problem details of the rest of the server (the parent's handler).
  app.setErrorHandler((error: FastifyError | OfrepError, request, reply) => {
    const key = (request.params as { key?: string } | undefined)?.key;
    const ofrep =
      error instanceof OfrepError
        ? error
        : error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
          ? new OfrepError(400, 'PARSE_ERROR', 'The request body is not valid JSON.')
          : error.validation
            ? new OfrepError(400, 'INVALID_CONTEXT', `The request is not valid: ${error.message}.`)
            : null;
    if (!ofrep) throw error;
    return reply
      .code(ofrep.status)
      .send({ ...(key !== undefined ? { key } : {}), errorCode: ofrep.errorCode, errorDetails: ofrep.message });
  });

  const config = { policy: 'authenticated', writes: false } as const;
  const security = [{ apiKey: [] }];

  app.post(
    '/evaluate/flags/:key',
    {
      config,
      schema: {
        tags: ['openfeature'],
        summary: 'OFREP: evaluate one flag (an entry) for a context',
        description:
          'A service API key (`authorization: Bearer rck_…`, `read` scope) names the service; `x-rc-version` names the version by label. A flag key is an entry key. Secret entries are FLAG_NOT_FOUND unless the key has the `secrets` scope.',
        security,
        params: Type.Object({ key: Type.String({ maxLength: 512 }) }),
        headers: VersionHeaders,
        body: RequestBody,
        response: { 200: Success, 400: Failure, 404: Failure, ...problems(401, 403) },
      },
    },
    async (request, reply) => {
      const label = labelOf(request);
      const context = contextOf(request.body);
      const flag = await options.evaluations.evaluateOne(callerOf(request), label, request.params.key, context);
      const status = !('errorCode' in flag) ? 200 : flag.errorCode === 'FLAG_NOT_FOUND' ? 404 : 400;
      return sendJson(reply, status, JSON.stringify(flag));
    },
  );

  app.post(
    '/evaluate/flags',
    {
      config,
      schema: {
        tags: ['openfeature'],
        summary: 'OFREP: evaluate every flag of a version for a context',
        description:
          'As the single evaluation, for every entry the key may read. Answers an `ETag`; a request whose `If-None-Match` names the current one answers 304 without a body. An unknown version answers no flags.',
        security,
        headers: Type.Object({
          ...VersionHeaders.properties,
          'if-none-match': Type.Optional(Type.String({ description: 'The ETag of an earlier answer' })),
        }),
        body: RequestBody,
        response: {
          200: Type.Object({
            flags: Type.Array(Type.Union([Success, Failure])),
            metadata: Type.Object({ versionId: Type.Optional(Type.String()) }),
          }),
          304: Type.Null({ description: 'Not modified: the answer is the one If-None-Match names' }),
          400: Failure,
          ...problems(401, 403),
        },
      },
    },
    async (request, reply) => {
      const label = labelOf(request);
      const context = contextOf(request.body);
      const { body, etag } = await options.evaluations.evaluateAllEncoded(callerOf(request), label, context);
      void reply.header('etag', etag).header('cache-control', 'no-cache');
      if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send(null);
      return sendJson(reply, 200, body);
    },
  );
};

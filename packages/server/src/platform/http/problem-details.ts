import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { dictionary } from '../dictionary.js';
import {
  AppError,
  errorTable,
  httpHeadersOf,
  httpStatusToCode,
  problemMembersOf,
  type ErrorCode,
  type FieldErrors,
  type Violation,
} from '../errors.js';

export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldErrors;
  /** The rules a refused write breaks (entry schemas, outside validators). */
  violations?: readonly Violation[];
  /** The running rollout holding the entry a refused write would change (409). */
  rolloutId?: string;
}

export function problemFor(code: ErrorCode, detail: string, errors?: FieldErrors): ProblemDetails {
  const { httpStatus, title, type } = errorTable[code];
  return { type, title, status: httpStatus, detail, ...(errors && Object.keys(errors).length > 0 ? { errors } : {}) };
}

/** Seconds a client should wait before retrying a 503 (the database or the server coming back). */
const RETRY_AFTER_SECONDS = '5';

export function sendProblem(reply: FastifyReply, problem: ProblemDetails): FastifyReply {
  if (problem.status === 503 && !reply.hasHeader('retry-after')) void reply.header('retry-after', RETRY_AFTER_SECONDS);
  return reply.code(problem.status).type('application/problem+json').send(problem);
}

interface AjvError {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** Turns Ajv's errors into `{ "field": ["message"] }`, with fields named as the client sent them. */
function fieldErrors(validation: readonly AjvError[], context: string | undefined): FieldErrors {
  // Field names are the client's own property names.
  const errors = dictionary<string[]>();
  for (const e of validation) {
    let field = (e.instancePath ?? '')
      .split('/')
      .filter(Boolean)
      .map((part) => (/^\d+$/.test(part) ? `[${part}]` : part))
      .join('.')
      .replace(/\.\[/g, '[');
    if (e.keyword === 'required' && typeof e.params?.missingProperty === 'string') {
      field = field ? `${field}.${e.params.missingProperty}` : e.params.missingProperty;
    }
    if (e.keyword === 'additionalProperties' && typeof e.params?.additionalProperty === 'string') {
      field = field ? `${field}.${e.params.additionalProperty}` : e.params.additionalProperty;
    }
    if (!field) field = context ?? 'body';
    const message = e.keyword === 'additionalProperties' ? 'is not a known field' : (e.message ?? 'is not valid');
    const messages = (errors[field] ??= []);
    if (!messages.includes(message)) messages.push(message);
  }
  return errors;
}

/**
 * One place that turns every failure into problem details (docs/rest-api.md, Errors): our AppError,
 * Fastify's validation and body errors, and anything unexpected, which is logged and answered
 * with a generic 500 that never carries the cause.
 */
export function installProblemDetails(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof AppError) {
      if (error.code === 'INTERNAL') request.log.error({ err: error }, 'request failed');
      void reply.headers(httpHeadersOf(error));
      return sendProblem(reply, {
        ...problemFor(error.code, error.message, error.fieldErrors),
        ...problemMembersOf(error),
      });
    }
    const fastifyError = error as FastifyError & { validationContext?: string };
    if (fastifyError.validation) {
      const context = fastifyError.validationContext;
      const where = context === 'params' ? 'path' : context === 'querystring' ? 'query string' : 'request body';
      return sendProblem(
        reply,
        problemFor('INVALID_ARGUMENT', `The ${where} is not valid.`, fieldErrors(fastifyError.validation, context)),
      );
    }
    const status = fastifyError.statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      const detail =
        fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? 'Request bodies must be application/json.'
          : fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
            ? 'The request body is larger than 1 MiB.'
            : fastifyError.message;
      return sendProblem(reply, problemFor(httpStatusToCode(status), detail));
    }
    request.log.error({ err: error }, 'request failed');
    return sendProblem(reply, problemFor('INTERNAL', 'An unexpected error occurred. It has been logged.'));
  });

  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, problemFor('NOT_FOUND', `No resource at ${request.method} ${request.url.split('?')[0] ?? ''}.`)),
  );
}

import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths, ProblemDetails } from '@realtime-config/protocol/rest';
import { CliError, EXIT, exitCodeOfStatus } from './errors.js';

/** How requests authenticate: the session cookie of a Local sign-in, or a bearer token. */
export type Credential = { readonly cookie: string } | { readonly token: string } | undefined;

/**
 * The management REST API of one server, typed by the paths of its OpenAPI document
 * (`@realtime-config/protocol/rest`, types only: nothing of the protocol package is loaded at run time).
 */
export type RestApi = Client<paths>;

export function createRestApi(server: string, credential: Credential): RestApi {
  const headers: Record<string, string> = { accept: 'application/json, */*' };
  if (credential && 'cookie' in credential) headers.cookie = credential.cookie;
  if (credential && 'token' in credential) headers.authorization = `Bearer ${credential.token}`;
  // A redirect is an answer, never followed: the credential goes to this server only.
  const api = createClient<paths>({ baseUrl: server, headers, redirect: 'manual' });
  api.use(unreachable(server));
  return api;
}

/** A request that got no answer at all (refused, no such host, TLS failure) says so in one line. */
function unreachable(server: string): Middleware {
  return {
    onError({ error }) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      return new CliError(`Cannot reach ${server}: ${cause}`, EXIT.failure);
    },
  };
}

/**
 * The data of a successful answer. Any other answer throws a CliError with the server's detail, its
 * field errors and the exit code of the status. A 409 ends with `conflictHint` (by default: read
 * again and retry; another, or none, for conflicts that reading again does not resolve), or, when a
 * running rollout holds the entry, with how to see that rollout.
 */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
  conflictHint = 'Read it again and retry.',
): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const { status } = response;
  const problem = problemOf(error);
  const hint =
    status === 401
      ? ' Sign in with `realtime-config login`.'
      : status !== 409
        ? ''
        : problem.rolloutId
          ? // Held by a running rollout: reading again changes nothing until it ends.
            ` See it with \`realtime-config rollout status -s <service> -v <version> ${problem.rolloutId}\`.`
          : conflictHint
            ? ` ${conflictHint}`
            : '';
  const message = `${problem.detail ?? problem.title ?? `The server answered ${status}.`}${hint}`;
  throw new CliError(message, exitCodeOfStatus(status), { ...problem.errors, ...violationLines(problem) });
}

/** A refusal's broken rules (`violations`) as field errors: by key and place, `keyword: message`. */
function violationLines(problem: Partial<ProblemDetails>): Record<string, string[]> {
  // Keys are the server's entry keys: a Map, never an object member named by them.
  const lines = new Map<string, string[]>();
  for (const v of problem.violations ?? []) {
    const field = v.keyword === 'validator' ? 'validator' : `${v.key ?? ''}${v.instancePath}`;
    lines.set(field, [
      ...(lines.get(field) ?? []),
      v.keyword === 'validator' ? v.message : `${v.keyword}: ${v.message}`,
    ]);
  }
  return Object.fromEntries(lines);
}

/** The problem details of a failed answer's body, or nothing when it holds none (a proxy's page, no body). */
export function problemOf(body: unknown): Partial<ProblemDetails> {
  return typeof body === 'object' && body !== null ? (body as Partial<ProblemDetails>) : {};
}

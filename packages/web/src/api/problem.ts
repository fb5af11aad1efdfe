import type { ProblemDetails } from '@realtime-config/protocol/rest';

/**
 * RFC 9457 problem details, as every REST error of the server answers; `type` is left out of the
 * problems the console makes itself (no answer, an unexpected error).
 */
export type Problem = Readonly<Omit<ProblemDetails, 'type'> & Partial<Pick<ProblemDetails, 'type'>>>;

/** The one error type of the console's data layer: a problem the server (or the network) answered. */
export class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail);
    this.name = 'ProblemError';
  }

  get status(): number {
    return this.problem.status;
  }

  /** The messages for one field of a validation failure, joined for display. */
  fieldError(field: string): string | undefined {
    const messages = this.problem.errors?.[field];
    return messages && messages.length > 0 ? messages.join('; ') : undefined;
  }
}

function isProblem(body: unknown): body is Problem {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as Problem).status === 'number' &&
    typeof (body as Problem).detail === 'string'
  );
}

/** Turns what a failed response carried into a problem; a body that is no problem still says what happened. */
export function problemOf(body: unknown, response: Response): Problem {
  if (isProblem(body)) return body;
  const title = response.statusText || `HTTP ${response.status}`;
  return { title, status: response.status, detail: `The server answered ${response.status} ${title}.` };
}

export const NETWORK_PROBLEM: Problem = {
  title: 'Network error',
  status: 0,
  detail: 'The server cannot be reached. Check your connection and try again.',
};

/** Whatever was thrown, as a problem to show. */
export function asProblem(error: unknown): Problem {
  if (error instanceof ProblemError) return error.problem;
  if (isProblem(error)) return error;
  if (error instanceof TypeError) return NETWORK_PROBLEM;
  return { title: 'Unexpected error', status: 0, detail: error instanceof Error ? error.message : String(error) };
}

/** The field errors of a failed request, if it was a validation failure; for forms. */
export function fieldErrorsOf(error: unknown): Record<string, string> {
  if (!(error instanceof ProblemError) || !error.problem.errors) return {};
  return Object.fromEntries(
    Object.entries(error.problem.errors).map(([field, messages]) => [field, messages.join('; ')]),
  );
}

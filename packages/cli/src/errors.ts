/**
 * Exit codes, made for CI pipelines: a script can tell "someone changed it meanwhile" from "that key
 * does not exist" from "the server is down" without parsing messages.
 */
export const EXIT = {
  ok: 0,
  /** The server could not be reached, or answered an unexpected error. */
  failure: 1,
  /** Wrong arguments or options; the command's help says what it takes. */
  usage: 2,
  /** 409: something changed since it was read (generation or dry-run token): read again, retry. */
  conflict: 3,
  /** 404: no such service, version or key. */
  notFound: 4,
  /** 401/403: not signed in, the sign-in expired, or the role does not allow it. */
  denied: 5,
  /** 400/413/415: the server refused the input (a value that does not fit its type, an unknown key…). */
  rejected: 6,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure the command reports in one line (plus the server's field errors) and exits with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    /** Field errors of a problem-details answer, by field. */
    readonly fieldErrors: Readonly<Record<string, readonly string[]>> = {},
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The exit code of an HTTP status that is not a success. */
export function exitCodeOfStatus(status: number): ExitCode {
  if (status === 409) return EXIT.conflict;
  if (status === 404) return EXIT.notFound;
  if (status === 401 || status === 403) return EXIT.denied;
  if (status === 400 || status === 413 || status === 415 || status === 422) return EXIT.rejected;
  return EXIT.failure;
}

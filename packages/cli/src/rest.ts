import { CliError, EXIT, exitCodeOfStatus } from './errors.js';

/** How requests authenticate: the session cookie of a Local sign-in, or a bearer token. */
export type Credential = { readonly cookie: string } | { readonly token: string } | undefined;

interface ProblemDetails {
  readonly title?: string;
  readonly detail?: string;
  readonly errors?: Record<string, string[]>;
}

export interface RequestOptions {
  readonly query?: Record<string, string | undefined>;
  /** JSON-encoded unless `raw` is given. */
  readonly json?: unknown;
  /** A body sent as it is, with its content type. */
  readonly raw?: { readonly body: string | Blob; readonly contentType: string };
}

/** The management REST API of one server: problem details become CliErrors with their exit code. */
export class RestApi {
  constructor(
    readonly server: string,
    private readonly credential: Credential,
  ) {}

  async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, options);
    return (await response.json()) as T;
  }

  async text(method: string, path: string, options: RequestOptions = {}): Promise<string> {
    return (await this.send(method, path, options)).text();
  }

  /** Sends a request; any answer but 2xx throws a CliError with the server's detail and field errors. */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const url = new URL(path, this.server);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, value);
    }
    const headers: Record<string, string> = { accept: 'application/json, */*' };
    if (this.credential && 'cookie' in this.credential) headers.cookie = this.credential.cookie;
    if (this.credential && 'token' in this.credential) headers.authorization = `Bearer ${this.credential.token}`;
    let body: string | Blob | undefined;
    if (options.raw) {
      body = options.raw.body;
      headers['content-type'] = options.raw.contentType;
    } else if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] = 'application/json';
    }
    let response: Response;
    try {
      response = await fetch(url, { method, headers, body, redirect: 'manual' });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      throw new CliError(`Cannot reach ${this.server}: ${cause}`, EXIT.failure);
    }
    if (response.ok) return response;
    throw await problemOf(response);
  }
}

async function problemOf(response: Response): Promise<CliError> {
  const text = await response.text();
  let problem: ProblemDetails = {};
  try {
    problem = JSON.parse(text) as ProblemDetails;
  } catch {
    // not problem details: say what the status was
  }
  const status = response.status;
  const hint =
    status === 401 ? ' Sign in with `realtime-config login`.' : status === 409 ? ' Read it again and retry.' : '';
  const message = `${problem.detail ?? problem.title ?? `The server answered ${status}.`}${hint}`;
  return new CliError(message, exitCodeOfStatus(status), problem.errors ?? {});
}

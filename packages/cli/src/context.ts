import { loadLogin } from './credentials.js';
import { CliError, EXIT } from './errors.js';
import { createOutput, type Output } from './output.js';
import { createRestApi, type Credential, type RestApi } from './rest.js';

export const DEFAULT_SERVER = 'http://localhost:8080';

/** The options every command has. */
export interface GlobalOptions {
  readonly server?: string;
  readonly json?: boolean;
}

/** What a command runs with: the server, its credential and where output goes. */
export interface CommandContext {
  /** The server's origin. */
  readonly server: string;
  readonly api: RestApi;
  readonly out: Output;
  readonly credential: Credential;
}

/**
 * The server: `--server`, else `REALTIME_CONFIG_URL`, else the one signed in to, else localhost.
 * The credential: `REALTIME_CONFIG_TOKEN` (a token or API key, for pipelines), else what `login` stored
 * for that server.
 */
export function contextOf(options: GlobalOptions, env: NodeJS.ProcessEnv = process.env): CommandContext {
  const stored = loadLogin(env);
  const server = normalizeServer(options.server ?? env.REALTIME_CONFIG_URL ?? stored?.server ?? DEFAULT_SERVER);
  let credential: Credential;
  if (env.REALTIME_CONFIG_TOKEN) credential = { token: env.REALTIME_CONFIG_TOKEN };
  else if (stored && stored.server === server) {
    credential = stored.cookie ? { cookie: stored.cookie } : stored.token ? { token: stored.token } : undefined;
  }
  return { server, api: createRestApi(server, credential), out: createOutput(options.json === true), credential };
}

export function normalizeServer(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`--server must be a URL such as ${DEFAULT_SERVER} (got "${value}").`, EXIT.usage);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`--server must be an http or https URL (got "${value}").`, EXIT.usage);
  }
  return url.origin;
}

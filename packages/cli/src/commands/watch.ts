import { ConfigError, watchVersion, type WatchedChange } from '../sdk.js';
import type { Command } from 'commander';
import { contextOf, type GlobalOptions } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import type { Credential } from '../rest.js';
import { resolveService, resolveVersion } from '../targets.js';

/** The wait before reconnecting after the stream broke (the server restarting, a network hiccup). */
const RECONNECT_MS = 1000;

/** One change of one key, as `watch --json` prints it. */
export interface PrintedChange {
  readonly key: string;
  readonly value: string | null;
  readonly type: string;
  readonly generation: number;
  readonly timestamp: string;
}

/** How the stream authenticates: an API key, the stored token, or the stored session cookie. */
function credentialOf(
  credential: Credential,
  apiKey: string | undefined,
): { apiKey?: string; token?: string; headers?: Record<string, string> } {
  if (apiKey) return { apiKey };
  if (credential && 'token' in credential) return { token: credential.token };
  if (credential && 'cookie' in credential) return { headers: { cookie: credential.cookie } };
  return {};
}

/** The SDK's refusals as the CLI's exit codes. */
function cliErrorOf(error: unknown): unknown {
  if (!(error instanceof ConfigError)) return error;
  if (error.code === 'NOT_FOUND') return new CliError(`Stream ended: ${error.message}`, EXIT.notFound);
  if (error.code === 'UNAUTHENTICATED' || error.code === 'PERMISSION_DENIED') {
    return new CliError(
      `The server refused the stream: ${error.message}. Sign in, or give an API key (REALTIME_CONFIG_API_KEY).`,
      EXIT.denied,
    );
  }
  if (error.code === 'INVALID_ARGUMENT') return new CliError(error.message, EXIT.rejected);
  return error;
}

function printed(change: WatchedChange): PrintedChange {
  return {
    key: change.key,
    value: change.value,
    type: change.valueType,
    generation: change.generation,
    timestamp: change.timestamp.toISOString(),
  };
}

export function watchCommand(program: Command, globals: () => GlobalOptions): void {
  program
    .command('watch')
    .description('Print live changes of a version as they happen (one line each; --json: one JSON object per line)')
    .argument('<service>', 'service name or id')
    .argument('<version>', 'version label or id')
    .option('--all', 'print every current value first, then the changes')
    .addHelpText(
      'after',
      '\nRuns until interrupted (Ctrl-C: exit code 0); reconnects by itself and misses nothing.\n' +
        'gRPC needs credentials when the server requires them: the stored sign-in, REALTIME_CONFIG_TOKEN, or an\n' +
        'API key in REALTIME_CONFIG_API_KEY.',
    )
    .action(async (serviceArg: string, versionArg: string, options: { all?: boolean }) => {
      const ctx = contextOf(globals());
      const service = await resolveService(ctx.api, serviceArg);
      const version = await resolveVersion(ctx.api, service, versionArg);
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      const print = (change: PrintedChange): void => {
        process.stdout.write(
          ctx.out.json
            ? `${JSON.stringify(change)}\n`
            : `${change.timestamp}  ${change.key} = ${change.value === null ? '(null)' : JSON.stringify(change.value)}  (generation ${change.generation})\n`,
        );
      };
      const changes = watchVersion({
        url: ctx.server,
        serviceId: service.id,
        versionId: version.id,
        since: options.all ? undefined : new Date(),
        pollingInterval: RECONNECT_MS,
        signal: stop.signal,
        ...credentialOf(ctx.credential, process.env.REALTIME_CONFIG_API_KEY),
        // Lost streams are told once through onStatus; the SDK's own warning would repeat it.
        logger: { warn: () => undefined },
        onStatus: (status, cause) => {
          if (status === 'live') ctx.out.note(`Watching ${service.name} ${version.versionLabel} (Ctrl-C ends).`);
          else
            ctx.out.note(
              `Stream interrupted (${cause?.message ?? 'unknown cause'}); reconnecting in about ${RECONNECT_MS / 1000} s.`,
            );
        },
      });
      try {
        for await (const batch of changes) for (const change of batch) print(printed(change));
      } catch (error) {
        throw cliErrorOf(error);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}

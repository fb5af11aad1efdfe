import { setTimeout as sleep } from 'node:timers/promises';
import { Code, ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import { createGrpcTransport, Http2SessionManager } from '@connectrpc/connect-node';
import type { Command } from 'commander';
import {
  microsFromTimestamp,
  RealtimeConfigGrpcService,
  timestampFromMicros,
  ValueType,
} from '../../../protocol/src/index.js';
import { contextOf, type GlobalOptions } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import type { Credential } from '../rest.js';
import { resolveService, resolveVersion } from '../targets.js';

/** The wait before reconnecting after the stream broke (the server restarting, a network hiccup). */
const RECONNECT_MS = 1000;

/** One change of one key, as `watch` prints it. */
export interface WatchedChange {
  readonly key: string;
  readonly value: string | null;
  readonly type: string;
  readonly generation: number;
  readonly timestamp: string;
}

function headersOf(credential: Credential, apiKey: string | undefined): Interceptor[] {
  const token = apiKey ?? (credential && 'token' in credential ? credential.token : undefined);
  const cookie = credential && 'cookie' in credential ? credential.cookie : undefined;
  return [
    (next) => (request) => {
      if (token) request.header.set('authorization', `Bearer ${token}`);
      else if (cookie) request.header.set('cookie', cookie);
      return next(request);
    },
  ];
}

function deniedOrMissing(error: ConnectError): CliError | undefined {
  if (error.code === Code.NotFound) return new CliError(`Stream ended: ${error.rawMessage}`, EXIT.notFound);
  if (error.code === Code.Unauthenticated || error.code === Code.PermissionDenied) {
    return new CliError(
      `The server refused the stream: ${error.rawMessage}. Sign in, or give an API key (REALTIME_CONFIG_API_KEY).`,
      EXIT.denied,
    );
  }
  if (error.code === Code.InvalidArgument) return new CliError(error.rawMessage, EXIT.rejected);
  return undefined;
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
      const sessions = new Http2SessionManager(ctx.api.server, { pingIntervalMs: 30_000, pingTimeoutMs: 10_000 });
      const client = createClient(
        RealtimeConfigGrpcService,
        createGrpcTransport({
          baseUrl: ctx.api.server,
          sessionManager: sessions,
          interceptors: headersOf(ctx.credential, process.env.REALTIME_CONFIG_API_KEY),
        }),
      );
      let after: number | undefined = options.all ? undefined : Date.now() * 1000;
      const print = (change: WatchedChange): void => {
        process.stdout.write(
          ctx.out.json
            ? `${JSON.stringify(change)}\n`
            : `${change.timestamp}  ${change.key} = ${change.value === null ? '(null)' : JSON.stringify(change.value)}  (generation ${change.generation})\n`,
        );
      };
      try {
        while (!stop.signal.aborted) {
          try {
            const request = {
              serviceId: service.id,
              versionId: version.id,
              timestamp: after === undefined ? undefined : timestampFromMicros(after),
            };
            const onHeader = (headers: Headers) => {
              if (!headers.has('grpc-status'))
                ctx.out.note(`Watching ${service.name} ${version.versionLabel} (Ctrl-C ends).`);
            };
            for await (const event of client.startSubscribe(request, { signal: stop.signal, onHeader })) {
              for (const e of event.events) {
                const micros = e.timestamp ? microsFromTimestamp(e.timestamp) : (after ?? 0);
                after = Math.max(after ?? 0, micros);
                print({
                  key: e.key,
                  value: e.value ?? null,
                  type: ValueType[e.type] ?? String(e.type),
                  generation: e.generation,
                  timestamp: new Date(micros / 1000).toISOString(),
                });
              }
            }
          } catch (error) {
            if (stop.signal.aborted) break;
            const connectError = ConnectError.from(error);
            const fatal = deniedOrMissing(connectError);
            if (fatal) throw fatal;
            ctx.out.note(`Stream interrupted (${connectError.rawMessage}); reconnecting in ${RECONNECT_MS / 1000} s.`);
          }
          if (!stop.signal.aborted)
            await sleep(RECONNECT_MS, undefined, { signal: stop.signal }).catch(() => undefined);
        }
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        sessions.abort();
      }
    });
}

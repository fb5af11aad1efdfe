import { createClient, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-web';
import { CONSOLE_SDK, RealtimeConfigGrpcService } from '@realtime-config/protocol';
import { bearerHeaders } from '../api/auth-token';

const bearer: Interceptor = (next) => (request) => {
  for (const [name, value] of Object.entries(bearerHeaders())) request.header.set(name, value);
  // The console's own stream says so: it is no instance of the application (the server leaves it out).
  request.header.set('x-rc-sdk', CONSOLE_SDK);
  return next(request);
};

/**
 * The change stream client: the Connect protocol over fetch, on the server's one port. The session
 * cookie goes along (same origin), so cookie providers need no token; Jwt sends its bearer token.
 */
export const liveClient = createClient(
  RealtimeConfigGrpcService,
  createConnectTransport({
    baseUrl: globalThis.location?.origin ?? '',
    useBinaryFormat: true,
    interceptors: [bearer],
    fetch: (input, init) => globalThis.fetch(input, { ...init, credentials: 'same-origin' }),
  }),
);

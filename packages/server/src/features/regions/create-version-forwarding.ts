import { Code, ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { AppError, errorTable, type ErrorCode } from '../../platform/errors.js';
import { RealtimeConfigGrpcService, type CreateVersionRequest, type CreateVersionResponse } from '../../protocol.js';
import {
  awaitReplay,
  FORWARD_TIMEOUT_MS,
  FORWARDED_BY_HEADER,
  FORWARDING_LOOP,
  primaryUnreachable,
  refusal,
  WAL_POSITION_HEADER,
  type ForwardingOptions,
} from './primary-forwarding.js';

/** The credentials of a gRPC call, as the realtime feature reads them. */
export interface CallCredentials {
  readonly authorization?: string | undefined;
  readonly cookie?: string | undefined;
}

/** Our error code for a gRPC status the primary answered (the first of the table with that status). */
function appCodeOf(code: Code): ErrorCode | null {
  const match = (Object.entries(errorTable) as Array<[ErrorCode, { grpcCode: number }]>).find(
    ([, mapping]) => mapping.grpcCode === (code as number),
  );
  return match ? match[0] : null;
}

/**
 * CreateVersion at a follower (docs/regions.md): sent to the primary over the Connect protocol with
 * the caller's credentials, the answer (or the error) is the primary's; without Server:PrimaryUrl
 * it is refused with UNAVAILABLE. The follower answers once its standby has replayed the primary's
 * position, so the GetConfig and StartSubscribe that an SDK sends next find the version here.
 */
export class CreateVersionForwarding {
  private client: ReturnType<typeof createClient<typeof RealtimeConfigGrpcService>> | null = null;

  constructor(private readonly options: ForwardingOptions) {}

  /** True while calls go to the primary instead of being served here. */
  get active(): boolean {
    return this.options.role.follower;
  }

  async createVersion(request: CreateVersionRequest, credentials: CallCredentials): Promise<CreateVersionResponse> {
    const { role } = this.options;
    const refused = refusal(role, undefined);
    if (refused) throw refused;
    const primaryUrl = role.primaryUrl as string;
    this.client ??= createClient(
      RealtimeConfigGrpcService,
      createConnectTransport({ baseUrl: primaryUrl, httpVersion: '1.1' }),
    );
    const headers: Record<string, string> = { [FORWARDED_BY_HEADER]: this.options.serverInstance };
    if (credentials.authorization !== undefined) headers.authorization = credentials.authorization;
    if (credentials.cookie !== undefined) headers.cookie = credentials.cookie;
    let position: string | null = null;
    let answer: CreateVersionResponse;
    try {
      answer = await this.client.createVersion(request, {
        headers,
        timeoutMs: FORWARD_TIMEOUT_MS,
        onHeader: (header) => (position = header.get(WAL_POSITION_HEADER)),
      });
    } catch (error) {
      const connectError = ConnectError.from(error);
      const code = appCodeOf(connectError.code);
      // The primary answered with a status: that is the caller's answer. Otherwise it was not reached.
      if (code !== null && code !== 'UNAVAILABLE' && connectError.code !== Code.Unknown) {
        throw new AppError(code, connectError.rawMessage, undefined, { cause: error });
      }
      throw primaryUnreachable(primaryUrl, error);
    }
    await awaitReplay(this.options, position);
    return answer;
  }
}

/**
 * The gRPC calls of forwarded requests (Connect-ES path; followers forward over the Connect
 * protocol): a primary answers them with its WAL position; a follower refuses them, since the
 * instance that forwarded one took it for the primary.
 */
export function forwardedCallInterceptor(options: ForwardingOptions): Interceptor {
  return (next) => async (request) => {
    if (!request.header.has(FORWARDED_BY_HEADER)) return next(request);
    if (options.role.follower) throw new ConnectError(FORWARDING_LOOP, Code.Unavailable);
    const response = await next(request);
    if (options.positions && !response.stream) {
      response.header.set(WAL_POSITION_HEADER, await options.positions.current());
    }
    return response;
  };
}

import type http2 from 'node:http2';
import { GetConfigRequestSchema } from '@realtime-config/protocol';
import type { GrpcAuthorizer } from './grpc-authorizer.js';
import { NativeGrpcCall, type NativeLogger } from './native-grpc.js';
import { requireLabel, requireUuid } from './subscribe-request.js';
import type { VersionSnapshots } from './version-snapshots.js';

/**
 * GetConfig on the raw HTTP/2 stream: the snapshot's encoded answer is cached until the version
 * changes, so a call costs a lookup and one write instead of encoding every entry again.
 */
export function serveNativeGetConfig(
  stream: http2.ServerHttp2Stream,
  options: { readonly snapshots: VersionSnapshots; readonly logger: NativeLogger; readonly authorizer: GrpcAuthorizer },
  authorization: string | undefined,
): void {
  const call = new NativeGrpcCall(stream, options.logger);
  void (async () => {
    try {
      const request = await call.readRequest(GetConfigRequestSchema);
      requireUuid('service_id', request.serviceId);
      requireLabel(request.version);
      await options.authorizer.authorize(authorization, request.serviceId);
      const frame = await options.snapshots.getConfigFrame(request.serviceId.toLowerCase(), request.version);
      if (call.isFinished) return;
      call.write(frame);
      call.finish('OK');
    } catch (error) {
      call.fail(error, 'GetConfig');
    }
  })();
}

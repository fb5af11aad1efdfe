/**
 * Subscribers as a grpc-js application has them: `@grpc/grpc-js` clients of the published .proto
 * (`@grpc/proto-loader`, protobufjs decoding every message), one StartSubscribe each, every client
 * with a channel and connection of its own (`grpc.use_local_subchannel_pool`), as one application
 * instance has (clients sharing grpc-js's default subchannel would put every stream on one
 * connection, which the server refuses beyond `Server:MaxStreamsPerConnection`). The receipt is
 * taken first thing in the `data` listener, after grpc-js decoded the message. Speaks the protocol
 * of subscriber-worker.ts.
 */
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { nowMs } from './common.js';
import { instanceIdOf, labelOf } from './grpc-wire.js';
import { Receipts } from './receipts.js';
import type { SubscriberStart } from './subscriber-worker.js';
import { exitWithParent, sendToParent } from './worker-process.js';

const PROTO = fileURLToPath(new URL('../../../protocol/proto/konfigo/client/service.proto', import.meta.url));

interface Event {
  events: Array<{ key: string; value?: { value: string } | null }>;
}

const clients: grpc.Client[] = [];
exitWithParent(() => {
  for (const client of clients) client.close();
});

async function start(options: SubscriberStart): Promise<void> {
  const definition = loadSync(PROTO, { keepCase: false, longs: Number, defaults: false, oneofs: true });
  const service = (grpc.loadPackageDefinition(definition) as any).konfigo.client.RealtimeConfigGrpcService;
  const n = options.subscribers;
  const receipts = new Receipts(n, options.maxChanges);
  const target = new URL(options.url).host;
  const began = nowMs();
  let opened = 0;
  let failed = 0;
  let firstError = '';
  let ended = 0;
  const afterMs = Math.floor(options.afterTimestampUs / 1000);
  const open = (i: number) =>
    new Promise<void>((resolve) => {
      const client = new service(target, grpc.credentials.createInsecure(), {
        'grpc.use_local_subchannel_pool': 1,
      }) as grpc.Client & {
        StartSubscribe(request: unknown, metadata: grpc.Metadata): grpc.ClientReadableStream<Event>;
      };
      clients.push(client);
      const metadata = new grpc.Metadata();
      if (options.identity) {
        const g = options.identity.first + i;
        metadata.set('x-rc-instance-id', instanceIdOf(options.identity, g));
        metadata.set('x-rc-labels', `${options.identity.labelKey}=${labelOf(options.identity, g)}`);
      }
      const call = client.StartSubscribe(
        {
          serviceId: options.serviceId,
          versionId: options.versionId,
          timestamp: { seconds: Math.floor(afterMs / 1000), nanos: (options.afterTimestampUs % 1_000_000) * 1000 },
        },
        metadata,
      );
      let settled = false;
      const settle = () => {
        if (settled) return;
        settled = true;
        resolve();
      };
      call.on('metadata', () => {
        opened++;
        settle();
      });
      call.on('data', (event: Event) => {
        const at = nowMs();
        for (const e of event.events) {
          if (e.key === options.key) receipts.record(i, Receipts.seqOf(e.value?.value), at, n);
        }
      });
      call.on('error', (error: grpc.ServiceError) => {
        if (!settled) {
          failed++;
          firstError ||= error.message;
        } else ended++;
        settle();
      });
    });
  const concurrency = Math.max(1, options.concurrency);
  for (let i = 0; i < n; i += concurrency) {
    await Promise.all(Array.from({ length: Math.min(concurrency, n - i) }, (_, k) => open(i + k)));
  }
  sendToParent({ type: 'ready', opened, failed, firstError, openMs: nowMs() - began });
  receipts.answerReports(() => ({ endedEarly: ended, endedStatuses: '', decodedFrames: 0, unexpectedFrames: 0 }));
}

process.on('message', (message: { type: string }) => {
  if (message.type === 'start') void start(message as SubscriberStart);
});
sendToParent({ type: 'alive' });

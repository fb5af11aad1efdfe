/**
 * The Redis baseline's subscribers: `subscribers` connections SUBSCRIBEd to one channel; the
 * driver does SET + PUBLISH (one MULTI) per change. Speaks the protocol of subscriber-worker.ts.
 */
import { Redis } from 'ioredis';
import { nowMs } from './common.js';
import { Receipts } from './receipts.js';
import { REDIS_CHANNEL } from './redis-baseline.js';
import type { SubscriberStart } from './subscriber-worker.js';
import { exitWithParent, sendToParent } from './worker-process.js';

const connections: Redis[] = [];

exitWithParent(() => {
  for (const connection of connections) connection.disconnect();
});

async function start(options: SubscriberStart): Promise<void> {
  const n = options.subscribers;
  const receipts = new Receipts(n, options.maxChanges);
  const began = nowMs();
  for (let i = 0; i < n; i++) {
    const connection = new Redis(options.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await connection.connect();
    await connection.subscribe(REDIS_CHANNEL);
    connection.on('message', (_channel: string, value: string) =>
      receipts.record(i, Receipts.seqOf(value), nowMs(), n),
    );
    connections.push(connection);
  }
  sendToParent({ type: 'ready', opened: n, failed: 0, firstError: '', openMs: nowMs() - began });
  receipts.answerReports(() => ({ endedEarly: 0, endedStatuses: '', decodedFrames: 0, unexpectedFrames: 0 }));
}

process.on('message', (message: { type: string }) => {
  if (message.type === 'start') void start(message as SubscriberStart);
});
sendToParent({ type: 'alive' });

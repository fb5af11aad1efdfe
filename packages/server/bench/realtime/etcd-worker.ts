/**
 * The etcd baseline's subscribers: `subscribers` etcd clients (the `etcd3` package over grpc-js, one
 * connection each), each watching the benchmark key; the driver PUTs `change-<seq>` per change.
 * Speaks the protocol of subscriber-worker.ts.
 */
import { Etcd3, type Watcher } from 'etcd3';
import { nowMs } from './common.js';
import { Receipts } from './receipts.js';
import type { SubscriberStart } from './subscriber-worker.js';
import { exitWithParent, sendToParent } from './worker-process.js';

const clients: Etcd3[] = [];
const watchers: Watcher[] = [];

exitWithParent(() => {
  for (const client of clients) client.close();
});

async function start(options: SubscriberStart): Promise<void> {
  const n = options.subscribers;
  const receipts = new Receipts(n, options.maxChanges);
  const began = nowMs();
  for (let i = 0; i < n; i++) {
    const client = new Etcd3({ hosts: options.url });
    clients.push(client);
    const watcher = await client.watch().key(options.key).create();
    watcher.on('put', (kv) => receipts.record(i, Receipts.seqOf(kv.value.toString()), nowMs(), n));
    watchers.push(watcher);
  }
  sendToParent({ type: 'ready', opened: n, failed: 0, firstError: '', openMs: nowMs() - began });
  receipts.answerReports(() => ({ endedEarly: 0, endedStatuses: '', decodedFrames: 0, unexpectedFrames: 0 }));
}

process.on('message', (message: { type: string }) => {
  if (message.type === 'start') void start(message as SubscriberStart);
});
sendToParent({ type: 'alive' });

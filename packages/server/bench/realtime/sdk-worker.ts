/**
 * An SDK load-generator process: `subscribers` clients of @realtime-config/client (the built
 * package, as an application gets it), each with its own HTTP/2 connection, and the time each
 * change reached each client's `subscribe` listener. Speaks the protocol of subscriber-worker.ts,
 * so SubscriberPool drives it; its 'ready' also carries the process's memory after a full GC
 * before and after the clients connected (run it with --expose-gc).
 */
import { connect, defineConfig, group, string, type LiveConfig } from '@realtime-config/client';
import { nowMs } from './common.js';
import { Receipts } from './receipts.js';
import type { SubscriberStart } from './subscriber-worker.js';
import { exitWithParent, sendToParent } from './worker-process.js';

/** The version sdk.ts creates (with the entry Bench:Seq) before the clients connect. */
const SDK_BENCH_VERSION = '1.0.0';
const schema = defineConfig({ Bench: group({ Seq: string({ default: 'initial' }) }) });
const clients: Array<LiveConfig<typeof schema>> = [];

exitWithParent(() => {
  for (const client of clients) void client.close();
});

function memoryAfterGc(): NodeJS.MemoryUsage {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  return process.memoryUsage();
}

async function start(options: SubscriberStart): Promise<void> {
  const n = options.subscribers;
  const receipts = new Receipts(n, options.maxChanges);
  let failed = 0;
  let firstError = '';
  const before = memoryAfterGc();
  const began = nowMs();

  const openOne = async (i: number): Promise<void> => {
    try {
      const client = await connect({
        url: options.url,
        serviceId: options.serviceId,
        version: SDK_BENCH_VERSION,
        schema,
        logger: { warn: () => undefined },
      });
      clients.push(client);
      client.subscribe((values) => receipts.record(i, Receipts.seqOf(values.Bench.Seq), nowMs(), clients.length));
    } catch (error) {
      failed++;
      firstError ||= error instanceof Error ? error.message : String(error);
    }
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(options.concurrency, n) }, async () => {
      while (next < n) await openOne(next++);
    }),
  );
  const openMs = nowMs() - began;
  await new Promise((resolve) => setTimeout(resolve, 1000)); // let the streams settle before measuring
  const after = memoryAfterGc();
  sendToParent({ type: 'ready', opened: clients.length, failed, firstError, openMs, memory: { before, after } });

  receipts.answerReports(() => {
    const ended = clients.filter((c) => c.status !== 'live').length;
    return {
      endedEarly: ended,
      endedStatuses: ended ? `${ended} not live` : '',
      decodedFrames: 0,
      unexpectedFrames: 0,
    };
  });
}

process.on('message', (message: { type: string }) => {
  if (message.type === 'start') void start(message as SubscriberStart);
});
sendToParent({ type: 'alive' });

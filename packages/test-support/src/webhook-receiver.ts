import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got. */
export interface ReceivedDelivery {
  readonly headers: Record<string, string>;
  readonly body: string;
  /** performance.now() when the body had arrived. */
  readonly receivedAt: number;
  /** What the receiver answered. */
  readonly answer: Answer;
}

/**
 * What the receiver answers to a request: a status code, or 'hang' (never answers; the request is
 * held until the receiver closes).
 */
export type Answer = number | 'hang';

/** A real HTTP server on loopback that records every request it gets and answers as told. */
export interface WebhookReceiver {
  readonly url: string;
  readonly port: number;
  readonly received: ReceivedDelivery[];
  /** Requests held open without an answer right now ('hang'). */
  readonly hanging: number;
  /** How to answer the next requests (the last answer repeats). */
  answer(...answers: Answer[]): void;
  /** Resolves once `count` requests have arrived in total. */
  waitFor(count: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(
  options: { port?: number; path?: string; answers?: Answer[] } = {},
): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  let answers: Answer[] = options.answers ?? [200];
  const held = new Set<http.ServerResponse>();
  let waiters: Array<{ count: number; resolve: () => void }> = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(', ') : (value ?? ''),
        ]),
      );
      const answer = answers.length > 1 ? (answers.shift() as Answer) : (answers[0] ?? 200);
      received.push({ headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: performance.now(), answer });
      if (answer === 'hang') {
        held.add(res);
        res.on('close', () => held.delete(res));
      } else {
        res.statusCode = answer;
        res.end('ok');
      }
      const ready = waiters.filter((w) => received.length >= w.count);
      waiters = waiters.filter((w) => received.length < w.count);
      for (const w of ready) w.resolve();
    });
  });
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${options.path ?? '/hook'}`,
    port,
    received,
    get hanging() {
      return held.size;
    },
    answer(...next) {
      answers = next;
    },
    async waitFor(count) {
      if (received.length < count) await new Promise<void>((resolve) => waiters.push({ count, resolve }));
      return received.slice(0, count);
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

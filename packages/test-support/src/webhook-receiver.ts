import { startHttpReceiver, type ReceivedRequest } from './http-receiver.js';

/** One request a receiver got. */
export interface ReceivedDelivery extends ReceivedRequest {
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
  let waiters: Array<{ count: number; resolve: () => void }> = [];

  const receiver = await startHttpReceiver({
    port: options.port,
    path: options.path ?? '/hook',
    reply: (request) => {
      const answer = answers.length > 1 ? (answers.shift() as Answer) : (answers[0] ?? 200);
      received.push({ ...request, receivedAt: performance.now(), answer });
      const ready = waiters.filter((w) => received.length >= w.count);
      waiters = waiters.filter((w) => received.length < w.count);
      for (const w of ready) w.resolve();
      return answer === 'hang' ? 'hang' : { status: answer, body: 'ok' };
    },
  });
  return {
    url: receiver.url,
    port: receiver.port,
    received,
    get hanging() {
      return receiver.hanging;
    },
    answer(...next) {
      answers = next;
    },
    async waitFor(count) {
      if (received.length < count) await new Promise<void>((resolve) => waiters.push({ count, resolve }));
      return received.slice(0, count);
    },
    close: () => receiver.close(),
  };
}

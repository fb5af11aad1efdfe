import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import { guardedLookup, refusedLiteralHost } from './webhook-targets.js';

/** A 2xx within this is success; anything else (a 3xx included) is a failed attempt. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** How much of a receiver's answer is read: enough to end the exchange cleanly, never more. */
const RESPONSE_BODY_CAP = 4096;
const ERROR_TEXT_CAP = 500;

export interface SendResult {
  readonly statusCode: number | null;
  readonly durationMs: number;
  /** Null on success. */
  readonly error: string | null;
}

/**
 * The Standard Webhooks headers of one attempt: the delivery's id (the same on every retry), the
 * attempt's time in Unix seconds, and a `v1,` signature of `id.timestamp.body` per secret (two,
 * space-separated, while a rotated secret is still honoured). Signed by the `standardwebhooks`
 * package, the specification's own implementation.
 */
export function signedHeaders(id: string, at: Date, body: string, secrets: readonly string[]): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'realtime-config-webhooks',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' '),
  };
}

const describe = (error: unknown): string => {
  const err = error as { name?: string; code?: string; message?: string; cause?: unknown };
  if (err.name === 'TimeoutError' || err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT')
    return `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`;
  const message = err.message ?? String(error);
  const cause = err.cause as { message?: string } | undefined;
  return cause?.message && !message.includes(cause.message) ? `${message}: ${cause.message}` : message;
};

/**
 * Sends deliveries over HTTP with undici: no redirects followed, a 10 s limit on the whole
 * exchange, at most a few KiB of the answer read. Without Webhooks:AllowPrivateNetworks, every
 * connection resolves its host through `guardedLookup`, so it goes only to a checked public address.
 */
export class WebhookSender {
  private readonly agent: Agent;

  constructor(private readonly allowPrivateNetworks: boolean) {
    this.agent = new Agent({
      headersTimeout: DELIVERY_TIMEOUT_MS,
      bodyTimeout: DELIVERY_TIMEOUT_MS,
      connect: { timeout: DELIVERY_TIMEOUT_MS, ...(allowPrivateNetworks ? {} : { lookup: guardedLookup }) },
    });
  }

  async send(url: string, headers: Record<string, string>, body: string, stop: AbortSignal): Promise<SendResult> {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    if (!this.allowPrivateNetworks) {
      const refused = refusedLiteralHost(new URL(url));
      if (refused) return { statusCode: null, durationMs: 0, error: refused };
    }
    try {
      const response = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.agent,
        signal: AbortSignal.any([stop, AbortSignal.timeout(DELIVERY_TIMEOUT_MS)]),
      });
      let read = 0;
      for await (const chunk of response.body) {
        read += (chunk as Buffer).length;
        if (read >= RESPONSE_BODY_CAP) break;
      }
      response.body.destroy();
      const { statusCode } = response;
      const ok = statusCode >= 200 && statusCode < 300;
      return { statusCode, durationMs: took(), error: ok ? null : `HTTP ${statusCode}` };
    } catch (error) {
      return { statusCode: null, durationMs: took(), error: describe(error).slice(0, ERROR_TEXT_CAP) };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

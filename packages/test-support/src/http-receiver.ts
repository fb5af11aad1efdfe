import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got: its headers (repeated ones joined by ", ") and its body as text. */
export interface ReceivedRequest {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** How to answer a request: a status and a body, or 'hang' (no answer until the receiver closes). */
export type Reply = { readonly status: number; readonly body?: string } | 'hang';

/** A real HTTP server on loopback that answers each request as `reply` says; what webhooks and validators post to. */
export interface HttpReceiver {
  readonly url: string;
  readonly port: number;
  /** Requests held open without an answer right now ('hang'). */
  readonly hanging: number;
  close(): Promise<void>;
}

export async function startHttpReceiver(options: {
  port?: number;
  path: string;
  /** Called once a request's body has arrived; a promise is awaited before answering. */
  reply: (request: ReceivedRequest) => Reply | Promise<Reply>;
}): Promise<HttpReceiver> {
  const held = new Set<http.ServerResponse>();
  const answer = (res: http.ServerResponse, reply: Reply) => {
    if (reply === 'hang') {
      held.add(res);
      res.on('close', () => held.delete(res));
      return;
    }
    res.statusCode = reply.status;
    res.end(reply.body ?? '');
  };
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
      const reply = options.reply({ headers, body: Buffer.concat(chunks).toString('utf8') });
      if (reply instanceof Promise) void reply.then((r) => answer(res, r));
      else answer(res, reply);
    });
  });
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${options.path}`,
    port,
    get hanging() {
      return held.size;
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

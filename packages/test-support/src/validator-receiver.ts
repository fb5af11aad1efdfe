import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a validator got. */
export interface ValidationCall {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** How a validator answers: a status and a body, or 'hang' (no answer until it closes). */
export type Verdict = { readonly status: number; readonly body?: string } | 'hang';

/** A real HTTP server on loopback playing a validator: it records each request and answers as `decide` says. */
export interface ValidatorReceiver {
  readonly url: string;
  readonly calls: ValidationCall[];
  /** Requests held open without an answer right now. */
  readonly hanging: number;
  /** How to answer from now on. */
  decide(decide: (call: ValidationCall) => Verdict | Promise<Verdict>): void;
  close(): Promise<void>;
}

export async function startValidatorReceiver(
  decide: (call: ValidationCall) => Verdict | Promise<Verdict> = () => ({ status: 204 }),
): Promise<ValidatorReceiver> {
  const calls: ValidationCall[] = [];
  const held = new Set<http.ServerResponse>();
  let current = decide;
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
      const call = { headers, body: Buffer.concat(chunks).toString('utf8') };
      calls.push(call);
      void Promise.resolve(current(call)).then((verdict) => {
        if (verdict === 'hang') {
          held.add(res);
          res.on('close', () => held.delete(res));
          return;
        }
        res.statusCode = verdict.status;
        res.end(verdict.body ?? '');
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/validate`,
    calls,
    get hanging() {
      return held.size;
    },
    decide(next) {
      current = next;
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

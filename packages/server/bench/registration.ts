/**
 * How long one large CreateVersion holds the server's event loop. While a registration of N
 * entries runs, a probe sends GET /healthz back to back on its own connection; the longest probe
 * answer is how long the event loop was held (a healthy probe answers in well under a millisecond).
 * Also sends a registration over the entry cap and one over the message cap, which must be refused
 * quickly. SQLite (the embedded database writes synchronously, so it is the case that can block).
 *
 *   npm run bench:registration        BENCH_REGISTRATION_SIZES="1000,5000" (default)
 */
import { create, toBinary } from '@bufbuild/protobuf';
import { CreateVersionRequestSchema, ValueType } from '@realtime-config/protocol';
import { Client } from 'undici';
import { fixed, log, machine, markdownTable, percentile, runMain } from './realtime/common.js';
import { connectH2c, grpcFrame, grpcHeaders } from './realtime/grpc-wire.js';
import { type ServerProcess, startSignedIn } from './realtime/server.js';

const SIZES = (process.env.BENCH_REGISTRATION_SIZES ?? '1000,5000').split(',').map(Number);

function request(serviceId: string, label: string, entries: number, valueBytes = 20) {
  return toBinary(
    CreateVersionRequestSchema,
    create(CreateVersionRequestSchema, {
      serviceId,
      version: label,
      classes: [
        {
          name: 'Bench',
          entries: Array.from({ length: entries }, (_, i) => ({
            key: `Bench:Key${i}`,
            name: `Key${i}`,
            valueType: ValueType.STRING,
            value: 'v'.repeat(valueBytes),
          })),
        },
      ],
    }),
  );
}

/** One native gRPC CreateVersion; resolves with its gRPC status and how long it took. */
async function register(server: ServerProcess, message: Uint8Array): Promise<{ status: string; ms: number }> {
  const session = connectH2c(server.baseUrl);
  const started = performance.now();
  try {
    return await new Promise((resolve, reject) => {
      const stream = session.request(grpcHeaders('CreateVersion'));
      let status = '';
      stream.on('response', (h) => (status = String(h['grpc-status'] ?? status)));
      stream.on('trailers', (t) => (status = String(t['grpc-status'] ?? status)));
      stream.on('error', reject);
      stream.on('data', () => undefined);
      stream.on('close', () => resolve({ status, ms: performance.now() - started }));
      stream.end(grpcFrame(message));
    });
  } finally {
    session.destroy();
  }
}

/** Back-to-back /healthz on one keep-alive connection until stopped; the answer times in ms. */
function probe(server: ServerProcess) {
  const client = new Client(server.baseUrl, { pipelining: 1 });
  const samples: number[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const started = performance.now();
      const res = await client.request({ path: '/healthz', method: 'GET' });
      await res.body.dump();
      samples.push(performance.now() - started);
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      await client.close();
      return samples;
    },
  };
}

async function main(): Promise<void> {
  log(`registration benchmark on ${machine()}`);
  const { server, rest } = await startSignedIn({ name: 'registration' });
  const serviceId = await rest.createService(`registration-${Date.now()}`);
  const rows: string[][] = [];

  log('probing /healthz while idle…');
  const idle = probe(server);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const idleSamples = await idle.stop();
  rows.push([
    '(idle, no registration)',
    '',
    '',
    fixed(percentile(idleSamples, 0.5), 2),
    fixed(percentile(idleSamples, 0.99), 2),
    fixed(Math.max(...idleSamples), 1),
  ]);

  const cases: Array<[string, Uint8Array]> = [
    ...SIZES.map((n): [string, Uint8Array] => [`${n} entries`, request(serviceId, `v${n}`, n)]),
    ['5,001 entries (over the entry cap)', request(serviceId, 'over-cap', 5001)],
    ['100,000 entries (over the 4 MiB message cap)', request(serviceId, 'over-size', 100_000)],
  ];
  for (const [name, message] of cases) {
    log(`CreateVersion: ${name} (${message.length} bytes)…`);
    const health = probe(server);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const { status, ms } = await register(server, message);
    const samples = await health.stop().catch((error: unknown) => {
      throw new Error(`the /healthz probe failed during "${name}": ${String(error)}\n${server.output()}`);
    });
    rows.push([
      name,
      status === '0' ? 'OK' : `status ${status}`,
      fixed(ms, 0),
      fixed(percentile(samples, 0.5), 2),
      fixed(percentile(samples, 0.99), 2),
      fixed(Math.max(...samples), 1),
    ]);
  }
  await server.stop();
  process.stdout.write(
    `\n${markdownTable(['CreateVersion', 'answer', 'took (ms)', '/healthz p50 (ms)', 'p99 (ms)', 'longest (ms)'], rows)}\n`,
  );
}

runMain(main);

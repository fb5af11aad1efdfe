/**
 * OpenFeature benchmark (BENCHMARKS.md, OpenFeature):
 * 1. OFREP bulk evaluation of a 200-entry version (`POST /ofrep/v1/evaluate/flags`, a context with a
 *    targetingKey, no If-None-Match: every answer evaluated and sent) on 1 and on 50 concurrent
 *    HTTP/1.1 connections for a fixed time: requests/s and p99; beside it GetConfig of a version of
 *    the same size at the same concurrencies (getconfig.ts, raw HTTP/2 gRPC).
 * 2. In-process evaluation through @realtime-config/openfeature: ns per call, of the provider's
 *    resolver and through an OpenFeature client.
 *
 *   node --import tsx packages/server/bench/openfeature.ts [--seconds 10] [--entries 200]
 */
import { randomBytes } from 'node:crypto';
import { OpenFeature } from '@openfeature/server-sdk';
import { Pool } from 'undici';
import { RealtimeConfigProvider } from '../../openfeature/src/index.js';
import { fixed, log, machine, markdownTable, nowMs, parseArgs, percentile, runMain } from './realtime/common.js';
import { getConfigTable, runGetConfig } from './realtime/getconfig.js';
import { startSignedIn } from './realtime/server.js';

const args = parseArgs(process.argv.slice(2));
const seconds = Number(args.get('seconds') ?? 10);
const entries = Number(args.get('entries') ?? 200);
const LABEL = '1.0.0';

interface LoadResult {
  readonly connections: number;
  readonly requestsPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly bytes: number;
  readonly errors: number;
}

async function ofrepLoad(url: string, apiKey: string, connections: number): Promise<LoadResult> {
  const pool = new Pool(url, { connections, pipelining: 1 });
  const body = JSON.stringify({ context: { targetingKey: 'user-42', region: 'eu', plan: 'gold' } });
  const headers = { authorization: `Bearer ${apiKey}`, 'x-rc-version': LABEL, 'content-type': 'application/json' };
  const latencies: number[] = [];
  let errors = 0;
  let bytes = 0;
  const warmUntil = nowMs() + 1000;
  const until = warmUntil + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (;;) {
        const started = nowMs();
        if (started >= until) return;
        const res = await pool.request({ path: '/ofrep/v1/evaluate/flags', method: 'POST', headers, body });
        const text = await res.body.text();
        if (started < warmUntil) continue;
        if (res.statusCode !== 200) errors++;
        else latencies.push(nowMs() - started);
        bytes = text.length;
      }
    }),
  );
  await pool.close();
  return {
    connections,
    requestsPerSecond: latencies.length / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    bytes,
    errors,
  };
}

async function inProcess(url: string, serviceId: string, apiKey: string) {
  const provider = new RealtimeConfigProvider({ url, serviceId, version: LABEL, apiKey, logger: { warn: () => {} } });
  await OpenFeature.setProviderAndWait('bench', provider);
  const client = OpenFeature.getClient('bench');
  const keys = Array.from({ length: entries }, (_, i) => keyOf(i));
  const time = async (what: string, evaluate: (key: string) => Promise<unknown>) => {
    const calls = 200_000;
    for (let i = 0; i < 20_000; i++) await evaluate(keys[i % keys.length] ?? '');
    const started = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) await evaluate(keys[i % keys.length] ?? '');
    const ns = Number(process.hrtime.bigint() - started) / calls;
    return [what, fixed(ns, 0)];
  };
  const rows = [
    await time('provider.resolveStringEvaluation (no targetingKey)', (key) =>
      provider.resolveStringEvaluation(key, '', {}),
    ),
    await time('OpenFeature client.getStringValue (no targetingKey)', (key) => client.getStringValue(key, '')),
    await time('client.getStringValue, context with targetingKey (cached OFREP answer)', (key) =>
      client.getStringValue(key, '', { targetingKey: 'user-42' }),
    ),
  ];
  await OpenFeature.close();
  return rows;
}

const keyOf = (i: number) => `App:Section${String(i % 10).padStart(2, '0')}:Setting${String(i).padStart(3, '0')}`;

runMain(async () => {
  const { server, rest } = await startSignedIn({ name: 'ofrep' });
  const serviceId = await rest.createService(`ofrep-${randomBytes(4).toString('hex')}`);
  const versionId = await rest.createVersion(serviceId, LABEL);
  for (let i = 0; i < entries; i++) {
    await rest.createEntry(serviceId, versionId, keyOf(i), `value-${randomBytes(12).toString('hex')}`);
  }
  const { key: apiKey } = await rest.call<{ key: string }>('POST', `/api/services/${serviceId}/apikeys`, {
    name: 'bench',
    scopes: ['read'],
  });
  log(`openfeature: ${entries} entries ready on ${server.baseUrl}`);

  const ofrep: LoadResult[] = [];
  for (const connections of [1, 50]) {
    ofrep.push(await ofrepLoad(server.baseUrl, apiKey, connections));
    log(`ofrep bulk, ${connections} connections: ${fixed(ofrep.at(-1)?.requestsPerSecond ?? 0, 0)} req/s`);
  }
  const evaluations = await inProcess(server.baseUrl, serviceId, apiKey);
  await server.stop();

  const getconfigs = [];
  for (const concurrency of [1, 50]) {
    getconfigs.push(await runGetConfig({ entries, concurrency, workers: 1, seconds, warmUpSeconds: 1 }));
  }

  console.log(`\nMachine: ${machine()}; ${seconds} s per run, ${entries} entries.\n`);
  console.log(
    `OFREP bulk (POST /ofrep/v1/evaluate/flags, every answer evaluated and sent):\n\n${markdownTable(
      ['connections', 'requests/s', 'p50 ms', 'p99 ms', 'answer bytes', 'errors'],
      ofrep.map((r) => [
        String(r.connections),
        fixed(r.requestsPerSecond, 0),
        fixed(r.p50, 2),
        fixed(r.p99, 2),
        String(r.bytes),
        String(r.errors),
      ]),
    )}\n`,
  );
  console.log(`GetConfig of the same size:\n\n${getConfigTable(getconfigs)}\n`);
  console.log(`In-process evaluation (ns per call):\n\n${markdownTable(['call', 'ns/call'], evaluations)}\n`);
});

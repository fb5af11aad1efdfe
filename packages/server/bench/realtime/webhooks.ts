/**
 * Webhook benchmark: the time from a REST write's answer until its delivery reaches a receiver, and
 * what webhooks cost the write itself.
 *
 *   node --import tsx packages/server/bench/realtime/webhooks.ts [--changes 300] [--sets 1000]
 *
 * On SQLite, and on PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL is set. The server is the
 * built JavaScript in its own process (Webhooks:AllowPrivateNetworks on: the receiver is on loopback);
 * the receiver is a plain HTTP server in this process answering 200. Receipt: when the receiver has
 * the whole body, on this process's clock, against the moment the REST answer arrived. Write latency:
 * one value set back to back by one client, on a service without webhooks and on one with 10
 * enabled webhooks (each set then writes 10 delivery rows in its transaction, and 10 deliveries are
 * sent meanwhile), and again with 10 webhooks whose receiver never answers, so that nothing is sent
 * and only the outbox's own work remains. Prints the figures; asserts nothing.
 */
import { randomBytes } from 'node:crypto';
import { startWebhookReceiver } from '@realtime-config/test-support/webhook-receiver';
import { fixed, log, machine, markdownTable, parseArgs, runMain } from './common.js';
import { figures, singleSetter, timeCalls, type Figures } from './rest-timing.js';
import {
  postgresAdminUrl,
  postgresDatabase,
  RestClient,
  sqliteDatabase,
  startServer,
  type BenchDatabase,
} from './server.js';

interface Result {
  readonly database: string;
  readonly receipt: Figures;
  readonly without: Figures;
  readonly withTen: Figures;
  readonly outboxOnly: Figures;
}

async function measure(database: BenchDatabase, changes: number, sets: number): Promise<Result> {
  const server = await startServer({
    name: 'A',
    database,
    adminPassword: randomBytes(12).toString('base64url'),
    settings: ['--Webhooks:AllowPrivateNetworks=true'],
  });
  const receiver = await startWebhookReceiver();
  const hanging = await startWebhookReceiver({ answers: ['hang'] });
  try {
    const rest = new RestClient(server);
    await rest.signIn();
    const addWebhooks = async (serviceId: string, count: number) => {
      for (let i = 0; i < count; i++)
        await rest.call('POST', `/api/services/${serviceId}/webhooks`, { url: receiver.url });
    };

    // REST answer → receipt, one webhook, one change at a time.
    const one = await singleSetter(rest);
    await addWebhooks(one.ids[0] ?? '', 1);
    const samples: number[] = [];
    for (let i = 0; i < changes + 20; i++) {
      const before = receiver.received.length;
      await one.set(`r-${i}`);
      const answered = performance.now();
      const [delivery] = (await receiver.waitFor(before + 1)).slice(before);
      if (i >= 20) samples.push((delivery?.receivedAt ?? answered) - answered);
    }
    const receipt = figures(samples);

    // With 10 webhooks that answer: the deliveries are sent by the same process meanwhile (first:
    // the hanging receiver below takes every place of the dispatcher's sends).
    const hooked = await singleSetter(rest);
    await addWebhooks(hooked.ids[0] ?? '', 10);
    let n = 0;
    await timeCalls(200, () => hooked.set(`w-${n++}`));
    const withTen = await timeCalls(sets, () => hooked.set(`w-${n++}`));
    // The write with no webhook and with ten whose receiver never answers, one after the other in
    // turn (so load from elsewhere falls on both alike). Once the dispatcher's 16 sends hang it
    // claims nothing more: a write then pays only for its 10 delivery rows (the outbox alone).
    const plain = await singleSetter(rest);
    const queued = await singleSetter(rest);
    for (let i = 0; i < 10; i++)
      await rest.call('POST', `/api/services/${queued.ids[0] ?? ''}/webhooks`, { url: hanging.url });
    await timeCalls(200, async () => {
      await plain.set(`w-${n++}`);
      await queued.set(`w-${n++}`);
    });
    const plainSamples: number[] = [];
    const queuedSamples: number[] = [];
    for (let i = 0; i < sets; i++) {
      for (const [setter, samples] of [
        [plain, plainSamples],
        [queued, queuedSamples],
      ] as const) {
        const started = performance.now();
        await setter.set(`w-${n++}`);
        samples.push(performance.now() - started);
      }
    }
    const without = figures(plainSamples);
    const outboxOnly = figures(queuedSamples);

    return { database: database.label, receipt, without, withTen, outboxOnly };
  } finally {
    await hanging.close();
    await receiver.close();
    await server.stop();
  }
}

runMain(async () => {
  const args = parseArgs(process.argv.slice(2));
  const changes = Number(args.get('changes') ?? 300);
  const sets = Number(args.get('sets') ?? 1000);
  log(`Webhook benchmark: ${changes} changes to one webhook, ${sets} sets with 0 and 10 webhooks\n${machine()}`);
  const databases = [sqliteDatabase()];
  const adminUrl = postgresAdminUrl();
  if (adminUrl) databases.push(await postgresDatabase(adminUrl));
  else log('PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL.');
  const results: Result[] = [];
  for (const database of databases) results.push(await measure(database, changes, sets));
  const rows = results.flatMap((r) => [
    [r.database, 'REST answer → webhook received (1 webhook)', fixed(r.receipt.p50, 2), fixed(r.receipt.p99, 2)],
    [r.database, 'REST set of one value, no webhook', fixed(r.without.p50, 2), fixed(r.without.p99, 2)],
    [r.database, 'REST set of one value, 10 webhooks', fixed(r.withTen.p50, 2), fixed(r.withTen.p99, 2)],
    [
      r.database,
      'REST set of one value, 10 webhooks, nothing sent (outbox rows only)',
      fixed(r.outboxOnly.p50, 2),
      fixed(r.outboxOnly.p99, 2),
    ],
  ]);
  process.stdout.write(`\n${machine()}\n\n${markdownTable(['database', 'figure', 'p50 ms', 'p99 ms'], rows)}\n`);
});

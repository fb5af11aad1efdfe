import * as grpc from '@grpc/grpc-js';
import { ValueType } from '@realtime-config/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient, type Subscription } from '@realtime-config/test-support/grpc-client';
import { createPgCluster, pgBinaries, type PgCluster } from '@realtime-config/test-support/pg-cluster';
import {
  findFreePort,
  killServerProcesses,
  serverProcessArgs,
  startServerProcess,
  type ServerProcess,
} from '@realtime-config/test-support/server-process';
import { postgresUrl } from '@realtime-config/test-support/test-databases';
import { ADMIN_PASSWORD, ApiClient } from '@realtime-config/test-support/test-server';
import { until as waitUntil } from '@realtime-config/test-support/until';

/**
 * PostgreSQL going away under a running service (restart, terminated connections, a stop, a crash)
 * and a service started before its database: the process stays up, answers 503 / UNAVAILABLE while
 * the database is away, recovers by itself, and every change reaches every stream that stayed open,
 * once and in order. The tests own their cluster, so they can do all that to it.
 */
const KEYS = ['Fault:A', 'Fault:B', 'Fault:C', 'Fault:D'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Background work here takes longer than the default wait. */
const until = (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000) =>
  waitUntil(condition, what, timeoutMs);

const serverArgs = (port: number, url: string) => serverProcessArgs(port, [`--Database:Url=${url}`]);

async function startInstance(url: string, until: 'listening' | 'ready' = 'ready'): Promise<ServerProcess> {
  return startServerProcess({ args: serverArgs(await findFreePort(), url), until, startTimeoutMs: 60_000 });
}

/** Sets values one key at a time through REST, retrying through outages; keeps what was acknowledged. */
class Writer {
  readonly acknowledged: Array<{ key: string; generation: number }> = [];
  readonly outageAnswers: number[] = [];
  private stopped = false;
  private readonly generations = new Map<string, number>();
  private readonly ids = new Map<string, string>();
  done: Promise<void> = Promise.resolve();

  constructor(
    private readonly clients: readonly ApiClient[],
    private readonly base: string,
  ) {}

  start(): void {
    this.done = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }

  private async refresh(client: ApiClient): Promise<boolean> {
    const res = await client.get(this.base).catch(() => undefined);
    if (res?.status !== 200) return false;
    for (const e of res.body as Array<{ id: string; key: string; generation: number }>) {
      this.ids.set(e.key, e.id);
      this.generations.set(e.key, e.generation);
    }
    return true;
  }

  private async loop(): Promise<void> {
    for (let i = 0; !this.stopped; i++) {
      const client = this.clients[i % this.clients.length]!;
      const key = KEYS[i % KEYS.length]!;
      if (!this.ids.has(key) && !(await this.refresh(client))) {
        await sleep(50);
        continue;
      }
      const res = await client
        .put(`${this.base}/set`, [{ id: this.ids.get(key), rawValue: `v${i}`, generation: this.generations.get(key) }])
        .catch(() => undefined);
      if (res?.status === 200) {
        const [entry] = res.body as Array<{ key: string; generation: number }>;
        this.generations.set(key, entry!.generation);
        this.acknowledged.push({ key, generation: entry!.generation });
      } else {
        if (res) this.outageAnswers.push(res.status);
        // 409 (a write whose answer was lost did commit) or an outage: re-read, then go on.
        if (!(await this.refresh(client))) await sleep(50);
      }
    }
  }
}

/** The (key, generation) pairs of a stream in arrival order. */
function sequence(subscription: Subscription): Array<{ key: string; generation: number }> {
  return subscription.configEvents.map((e) => ({ key: e.key, generation: e.generation }));
}

/** Per key, each generation once and in order, from the backfill's 1 up to the stored one. */
function streamProblems(name: string, seen: Array<{ key: string; generation: number }>, stored: Map<string, number>) {
  const problems: string[] = [];
  for (const key of KEYS) {
    const generations = seen.filter((e) => e.key === key).map((e) => e.generation);
    const expected = Array.from({ length: stored.get(key) ?? 0 }, (_, i) => i + 1);
    if (JSON.stringify(generations) !== JSON.stringify(expected)) {
      const gaps = expected.filter((g) => !generations.includes(g));
      problems.push(
        `${name} ${key}: missing ${JSON.stringify(gaps.slice(0, 10))}, got ${generations.length} of ${expected.length}`,
      );
    }
  }
  return problems;
}

describe.skipIf(!postgresUrl)('the service across PostgreSQL faults', () => {
  let cluster: PgCluster;
  const closers: Array<() => void> = [];

  beforeAll(async () => {
    if (!pgBinaries) throw new Error('PostgreSQL server binaries are needed under /usr/lib/postgresql/*/bin');
    cluster = await createPgCluster();
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) close();
    await killServerProcesses();
  });
  afterAll(() => cluster?.destroy());

  async function setUp(instances: number, database: string) {
    await cluster.createDatabase(database);
    const servers: ServerProcess[] = [];
    for (let i = 0; i < instances; i++) servers.push(await startInstance(cluster.url(database)));
    const admins = await Promise.all(servers.map((s) => new ApiClient(s.baseUrl).login('admin', ADMIN_PASSWORD)));
    const admin = admins[0]!;
    const serviceId = (await admin.post('/api/services', { name: 'faults' })).body.id as string;
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body
      .id as string;
    for (const key of KEYS) {
      expect(
        (await admin.post(`/api/configentries/${serviceId}/${versionId}`, { key, valueType: 1, rawValue: 'v' })).status,
      ).toBe(201);
    }
    const grpcClients = servers.map((s) => new GrpcTestClient(`127.0.0.1:${s.port}`));
    closers.push(() => grpcClients.forEach((c) => c.close()));
    // Two streams per instance, opened before any fault and never reopened.
    const streams = grpcClients.flatMap((c) => [
      c.subscribe({ serviceId, versionId }),
      c.subscribe({ serviceId, versionId }),
    ]);
    closers.push(() => streams.forEach((s) => s.cancel()));
    for (const s of streams) await s.until((x) => x.configEvents.length >= KEYS.length);
    const writer = new Writer(admins, `/api/configentries/${serviceId}/${versionId}`);
    return { servers, admins, admin, serviceId, versionId, grpcClients, streams, writer };
  }

  /** Lets the writer make progress, then does the fault, then waits until writes succeed again. */
  async function underWrites(writer: Writer, fault: () => Promise<void>): Promise<void> {
    const before = writer.acknowledged.length;
    await until(() => writer.acknowledged.length >= before + 20, 'writes before the fault');
    await fault();
    const after = writer.acknowledged.length;
    await until(() => writer.acknowledged.length >= after + 20, 'writes after the fault');
  }

  async function expectEveryChangeOnEveryStream(setup: Awaited<ReturnType<typeof setUp>>): Promise<void> {
    const { admin, serviceId, versionId, streams, servers, writer } = setup;
    await writer.stop();
    const stored = new Map(
      (
        (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as Array<{
          key: string;
          generation: number;
        }>
      ).map((e) => [e.key, e.generation]),
    );
    for (const [i, s] of streams.entries()) {
      await until(
        () => KEYS.every((k) => sequence(s).some((e) => e.key === k && e.generation === stored.get(k))),
        `stream ${i} catching up`,
      );
    }
    for (const [i, s] of streams.entries()) {
      expect(s.status, `stream ${i} ended`).toBeUndefined();
      expect(streamProblems(`stream ${i}`, sequence(s), stored)).toEqual([]);
      const seen = new Set(sequence(s).map((e) => `${e.key}#${e.generation}`));
      expect(writer.acknowledged.filter((a) => !seen.has(`${a.key}#${a.generation}`))).toEqual([]);
    }
    for (const server of servers) expect(server.child.exitCode, server.output().slice(-2000)).toBeNull();
    expect(writer.acknowledged.length).toBeGreaterThan(150);
  }

  /** While the database is down: the process answers, says not ready, and refuses with 503 / UNAVAILABLE. */
  async function expectUnavailable(setup: Awaited<ReturnType<typeof setUp>>): Promise<void> {
    const { servers, admin, grpcClients, serviceId, versionId } = setup;
    for (const server of servers) {
      expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
      expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(503);
    }
    const entries = await admin.get(`/api/configentries/${serviceId}/${versionId}`);
    expect(entries.status).toBe(503);
    expect(entries.headers.get('content-type')).toContain('application/problem+json');
    expect(Number(entries.headers.get('retry-after'))).toBeGreaterThan(0);
    const registration = await grpcClients[0]!
      .createVersion({
        serviceId,
        version: 'during-outage',
        classes: [{ name: 'C', entries: [{ key: 'X', name: 'X', valueType: ValueType.STRING }] }],
      })
      .catch((e: grpc.ServiceError) => e);
    expect((registration as grpc.ServiceError).code).toBe(grpc.status.UNAVAILABLE);
  }

  it.each([
    [1, 'one instance'],
    [2, 'two instances'],
  ])(
    'keeps %i instance(s) up through a restart, terminated connections, a stop and a crash (%s)',
    async (instances) => {
      const setup = await setUp(instances, `faults_${instances}`);
      setup.writer.start();
      await underWrites(setup.writer, () => cluster.restart());
      await underWrites(setup.writer, async () => {
        expect(await cluster.terminateBackends()).toBeGreaterThan(0);
      });
      await underWrites(setup.writer, async () => {
        await cluster.stop();
        await sleep(300);
        await expectUnavailable(setup);
        await cluster.start();
      });
      await underWrites(setup.writer, async () => {
        await cluster.kill();
        await sleep(300);
        await cluster.start();
      });
      expect(setup.writer.outageAnswers.filter((s) => s !== 503 && s !== 409)).toEqual([]);
      await expectEveryChangeOnEveryStream(setup);
    },
    240_000,
  );

  it('starts while the database is down, says not ready, and becomes ready when it comes up', async () => {
    await cluster.createDatabase('late');
    await cluster.stop();
    let server: ServerProcess;
    try {
      server = await startInstance(cluster.url('late'), 'listening');
      expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
      const ready = await fetch(`${server.baseUrl}/readyz`);
      expect(ready.status).toBe(503);
      const signIn = await new ApiClient(server.baseUrl).post('/auth/login', {
        username: 'admin',
        password: ADMIN_PASSWORD,
      });
      expect(signIn.status).toBe(503);
      expect(Number(signIn.headers.get('retry-after'))).toBeGreaterThan(0);
      const client = new GrpcTestClient(`127.0.0.1:${server.port}`);
      closers.push(() => client.close());
      const call = await client
        .getConfig({ serviceId: '00000000-0000-4000-8000-000000000000', version: '1' })
        .catch((e: grpc.ServiceError) => e);
      expect((call as grpc.ServiceError).code).toBe(grpc.status.UNAVAILABLE);
      await sleep(1500); // a few retries with back-off
      expect(server.child.exitCode).toBeNull();
    } finally {
      await cluster.start();
    }
    await until(async () => (await fetch(`${server.baseUrl}/readyz`)).status === 200, 'readiness');
    const admin = await new ApiClient(server.baseUrl).login('admin', ADMIN_PASSWORD);
    expect((await admin.post('/api/services', { name: 'after-a-late-start' })).status).toBe(201);
    expect(server.output()).toMatch(/the database does not answer yet; retrying/);
  });
});

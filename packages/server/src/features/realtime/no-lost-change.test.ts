import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { microsFromTimestamp } from '@realtime-config/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ChangeHistory,
  fetchEntryAudit,
  isoToMicros,
  type RestEntry,
  type WriteAttempt,
} from '@realtime-config/test-support/change-history';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import {
  observedEventsOf,
  orderingProblems,
  ResumingSubscriber,
  type ObservedEvent,
} from '@realtime-config/test-support/resuming-subscriber';
import {
  findFreePort,
  killServerProcesses,
  serverProcessArgs,
  startServerProcess,
  type ServerProcess,
} from '@realtime-config/test-support/server-process';
import { createTestDatabase, databaseKinds } from '@realtime-config/test-support/test-databases';
import { ADMIN_PASSWORD, ApiClient, type ApiResponse } from '@realtime-config/test-support/test-server';
import { seededRandom } from '@realtime-config/test-support/seeded-random';
import { until } from '@realtime-config/test-support/until';

/**
 * The promise of the change stream, tested the hard way: a subscriber that reconnects with the
 * timestamp of the last event it saw misses nothing, however its connection ends (its own cancel,
 * the server being SIGKILLed and restarted), while several writers race on one version.
 *
 * The server is the real process (main.ts), so it can be killed without a goodbye and restarted on
 * the same data and port. The committed history is rebuilt from the audit log and cross-checked
 * with every REST answer; every subscriber's events are then checked against it (see ChangeHistory).
 */

const INITIAL_KEYS = 20;
/** Keys a writer may create: the initial ones (after their deletion) and a few new ones. */
const KEY_POOL = 24;
const WRITERS = 3;
/** Successful writes before the kill, and again after the restart. */
const WRITES_PER_PHASE = 60;
const STRING = 1;

const keyName = (i: number): string => `App:Key${String(i).padStart(2, '0')}`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Run {
  readonly baseUrl: string;
  readonly serviceId: string;
  readonly versionId: string;
  readonly rng: () => number;
  readonly attempts: WriteAttempt[];
  phase: number;
  stopping: boolean;
  /** Keys whose entry was deleted (204): creating one of them again is a re-creation. */
  readonly deletedKeys: Set<string>;
  recreations: number;
}

/**
 * A management client changing values as fast as it can: batch sets (reading generations from each
 * answer; a 409 from a race means re-read and go on), and now and then a create or a delete. It
 * rides through a server restart: a request without an answer is recorded as `unknown`, and it
 * re-reads the entries until the server answers again. Every value it sends is unique, so the
 * audit log tells which request committed what.
 */
class Writer {
  readonly client: ApiClient;
  unauthorized = 0;
  readonly serverErrors: string[] = [];
  private entries = new Map<string, RestEntry>();
  private seq = 0;

  constructor(
    readonly index: number,
    private readonly run: Run,
  ) {
    this.client = new ApiClient(run.baseUrl);
  }

  private get base(): string {
    return `/api/configentries/${this.run.serviceId}/${this.run.versionId}`;
  }

  async loop(): Promise<void> {
    await this.login();
    await this.refresh();
    const rng = this.run.rng;
    while (!this.run.stopping) {
      const live = [...this.entries.values()];
      const roll = rng();
      if (roll < 0.08 && live.length < KEY_POOL) await this.create(live);
      else if (roll < 0.16 && live.length > 12) await this.delete(live);
      else await this.set(live);
      await sleep(rng() * 8);
    }
  }

  private nextValue(): string {
    return `w${this.index}-${++this.seq}`;
  }

  private async set(live: RestEntry[]): Promise<void> {
    const rng = this.run.rng;
    const count = 1 + Math.floor(rng() * 4);
    const chosen = [...live].sort(() => rng() - 0.5).slice(0, count);
    const items = chosen.map((e) => ({ id: e.id, key: e.key, rawValue: this.nextValue(), generation: e.generation }));
    const res = await this.send({ op: 'set', items }, () =>
      this.client.put(
        `${this.base}/set`,
        items.map(({ id, rawValue, generation }) => ({ id, rawValue, generation })),
      ),
    );
    if (res?.status === 200) for (const e of res.body as RestEntry[]) this.entries.set(e.id, e);
  }

  private async create(live: RestEntry[]): Promise<void> {
    const taken = new Set(live.map((e) => e.key));
    const free = Array.from({ length: KEY_POOL }, (_, i) => keyName(i)).filter((k) => !taken.has(k));
    const key = free[Math.floor(this.run.rng() * free.length)] as string;
    const rawValue = this.nextValue();
    const res = await this.send({ op: 'create', items: [{ key, rawValue, generation: 1 }] }, () =>
      this.client.post(this.base, { key, valueType: STRING, rawValue }),
    );
    if (res?.status === 201) {
      const created = res.body as RestEntry;
      this.entries.set(created.id, created);
      if (this.run.deletedKeys.has(key)) this.run.recreations++;
    }
  }

  private async delete(live: RestEntry[]): Promise<void> {
    const entry = live[Math.floor(this.run.rng() * live.length)] as RestEntry;
    const res = await this.send(
      { op: 'delete', items: [{ id: entry.id, key: entry.key, rawValue: null, generation: entry.generation }] },
      () => this.client.delete(`${this.base}/${entry.id}`),
    );
    if (res?.status === 204) {
      this.entries.delete(entry.id);
      this.run.deletedKeys.add(entry.key);
    }
  }

  /** Sends one write and records it with its outcome; re-reads the entries when it did not succeed. */
  private async send(
    request: Pick<WriteAttempt, 'op' | 'items'>,
    call: () => Promise<ApiResponse>,
  ): Promise<ApiResponse | undefined> {
    const attempt: WriteAttempt = { ...request, writer: this.index, phase: this.run.phase, outcome: 'unknown' };
    this.run.attempts.push(attempt);
    let res: ApiResponse;
    try {
      res = await call();
    } catch (error) {
      attempt.error = String((error as Error).cause ?? error);
      await this.refresh();
      return undefined;
    }
    attempt.status = res.status;
    if (res.status === 503) {
      // A restarted server answers 503 until it has its database again: like no answer at all.
      attempt.error = res.text;
      await this.refresh();
      return undefined;
    }
    if (res.status >= 200 && res.status < 300) {
      attempt.outcome = 'ok';
      if (res.status !== 204)
        attempt.answer = Array.isArray(res.body) ? (res.body as RestEntry[]) : [res.body as RestEntry];
      return res;
    }
    if (res.status >= 500) {
      this.serverErrors.push(`${request.op} answered ${res.status}: ${res.text}`);
    } else {
      attempt.outcome = 'rejected';
      if (res.status === 401) {
        this.unauthorized++;
        await this.login();
      }
    }
    await this.refresh();
    return res;
  }

  /** Re-reads the version's entries (their current generations), waiting for the server if it is down. */
  private async refresh(): Promise<void> {
    const res = await this.retrying(async () => {
      const answer = await this.client.get(this.base);
      if (answer.status === 503) throw new Error(`the server is not ready: ${answer.text}`);
      return answer;
    });
    if (res.status !== 200)
      throw new Error(`writer ${this.index}: listing entries answered ${res.status}: ${res.text}`);
    this.entries = new Map((res.body as RestEntry[]).map((e) => [e.id, e]));
  }

  /** Signs in, waiting for the server to be up and ready. */
  private login(): Promise<unknown> {
    return this.retrying(() => this.client.login('admin', ADMIN_PASSWORD));
  }

  private async retrying<T>(fn: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        return await fn();
      } catch (error) {
        if (Date.now() > deadline || (this.run.stopping && this.run.phase === 2)) throw error;
        await sleep(50);
      }
    }
  }
}

type StoredView = Map<string, { value: string | null; generation: number; timestamp: number }>;

function viewProblems(subscriber: ResumingSubscriber, stored: StoredView): string[] {
  const problems: string[] = [];
  for (const [key, want] of stored) {
    const got = subscriber.view.get(key);
    if (!got || got.value !== want.value || got.generation !== want.generation || got.timestamp !== want.timestamp) {
      problems.push(
        `${subscriber.name}: ${key} is ${got ? `${got.value} g${got.generation} at ${got.timestamp}` : 'missing'}, stored ${want.value} g${want.generation} at ${want.timestamp}`,
      );
    }
  }
  for (const key of subscriber.view.keys())
    if (!stored.has(key)) problems.push(`${subscriber.name}: ${key} is in its view but not stored`);
  return problems;
}

describe.each(databaseKinds)('no change is lost on %s', (kind) => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await killServerProcesses();
  });

  it('while writers race, subscribers are cancelled and reconnect, and the server is SIGKILLed and restarted', async () => {
    const seed = Math.floor(Math.random() * 2 ** 31);
    const started = Date.now();
    const port = await findFreePort();
    let databaseArgs: readonly string[];
    if (kind === 'sqlite') {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'rc-no-lost-'));
      cleanups.push(async () => {
        await killServerProcesses();
        rmSync(dataDir, { recursive: true, force: true });
      });
      databaseArgs = [`--Database:DataDir=${dataDir}`];
    } else {
      const database = await createTestDatabase('postgres');
      cleanups.push(async () => {
        await killServerProcesses();
        await database.drop();
      });
      databaseArgs = database.args;
    }
    const args = serverProcessArgs(port, databaseArgs);
    let server: ServerProcess = await startServerProcess({ args });
    const baseUrl = server.baseUrl;
    const address = `127.0.0.1:${port}`;

    const admin = await new ApiClient(baseUrl).login('admin', ADMIN_PASSWORD);
    const serviceId = (await admin.post('/api/services', { name: 'no-lost-change' })).body.id as string;
    const versionLabel = '1.0.0';
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel })).body.id as string;
    const attempts: WriteAttempt[] = [];
    for (let i = 0; i < INITIAL_KEYS; i++) {
      const rawValue = `initial-${i}`;
      const res = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
        key: keyName(i),
        valueType: STRING,
        rawValue,
      });
      expect(res.status, res.text).toBe(201);
      attempts.push({
        writer: -1,
        op: 'create',
        items: [{ key: keyName(i), rawValue, generation: 1 }],
        phase: 0,
        outcome: 'ok',
        status: 201,
        answer: [res.body],
      });
    }

    // Subscribers: from the beginning, or from a GetConfig snapshot like the SDK; some are left
    // alone (their stream only ends with the kill), the others are cancelled now and then.
    const snapshotClient = new GrpcTestClient(address);
    const snapshot = await snapshotClient.getConfig({ serviceId, version: versionLabel });
    snapshotClient.close();
    const snapshotView: ObservedEvent[] = snapshot.entries.map((e) => ({
      key: e.key,
      value: e.value ?? null,
      generation: e.generation,
      timestamp: microsFromTimestamp(e.timestamp!),
    }));
    const snapshotTimestamp = Math.max(...snapshotView.map((e) => e.timestamp));
    const plan = [
      { name: 'steady-0', fromSnapshot: false, interrupted: false },
      { name: 'steady-1', fromSnapshot: false, interrupted: false },
      { name: 'steady-snapshot', fromSnapshot: true, interrupted: false },
      { name: 'flaky-0', fromSnapshot: false, interrupted: true },
      { name: 'flaky-1', fromSnapshot: false, interrupted: true },
      { name: 'flaky-2', fromSnapshot: false, interrupted: true },
      { name: 'flaky-3', fromSnapshot: false, interrupted: true },
      { name: 'flaky-snapshot', fromSnapshot: true, interrupted: true },
    ];
    const subscribers = plan.map(
      (p) =>
        new ResumingSubscriber({
          name: p.name,
          address,
          serviceId,
          versionId,
          startTimestamp: p.fromSnapshot ? snapshotTimestamp : 0,
          initialView: p.fromSnapshot ? snapshotView : [],
          reconnectDelayMs: [100, 300],
        }),
    );
    const flaky = subscribers.filter((_, i) => plan[i]?.interrupted);
    cleanups.push(() => subscribers.forEach((s) => s.stop()));
    for (const s of subscribers) s.start();
    for (const s of subscribers.filter((x) => x.startTimestamp === 0))
      await s.until((x) => x.events.length > 0, 'the backfill');

    const run: Run = {
      baseUrl,
      serviceId,
      versionId,
      rng: seededRandom(seed),
      attempts,
      phase: 0,
      stopping: false,
      deletedKeys: new Set(),
      recreations: 0,
    };
    const writers = Array.from({ length: WRITERS }, (_, i) => new Writer(i, run));
    const writing = Promise.allSettled(writers.map((w) => w.loop()));
    let interrupting = true;
    cleanups.push(async () => {
      run.stopping = true;
      run.phase = 2;
      interrupting = false;
      await writing;
    });
    const interrupter = (async () => {
      const rng = seededRandom(seed + 1);
      while (interrupting) {
        await sleep(150 + rng() * 250);
        const candidates = flaky.filter((s) => s.streaming);
        candidates[Math.floor(rng() * candidates.length)]?.interrupt();
      }
    })();

    const okWrites = (phase: number): number =>
      attempts.filter((a) => a.writer >= 0 && a.phase === phase && a.outcome === 'ok').length;
    await until(() => okWrites(0) >= WRITES_PER_PHASE, `${WRITES_PER_PHASE} writes`, 30_000);

    // The kill: no shutdown, requests and streams cut mid-flight. Then the same data, the same port.
    await server.kill();
    const callsBeforeRestart = subscribers.map((s) => s.segments.length);
    run.phase = 1;
    server = await startServerProcess({ args });

    await until(
      () =>
        okWrites(1) >= WRITES_PER_PHASE &&
        writers.every((w) => attempts.some((a) => a.writer === w.index && a.phase === 1 && a.outcome === 'ok')) &&
        subscribers.every((s, i) => s.segments.slice(callsBeforeRestart[i]).some((seg) => seg.messages.length > 0)) &&
        flaky.every((s) => s.interruptions >= 2) &&
        run.recreations >= 1,
      'writes, reconnects, cancels and a re-creation after the restart',
      30_000,
    );
    run.stopping = true;
    interrupting = false;
    const settled = await writing;
    await interrupter;
    for (const result of settled) if (result.status === 'rejected') throw result.reason;

    // The version's last change: what a brand-new subscriber's catch-up ends with.
    const referenceClient = new GrpcTestClient(address);
    const reference = referenceClient.subscribe({ serviceId, versionId });
    await reference.until((s) => s.events.length > 0);
    const referenceEvents = observedEventsOf(reference.events[0]!);
    const lastChange = Math.max(...referenceEvents.map((e) => e.timestamp));
    reference.cancel();
    referenceClient.close();
    for (const s of subscribers) await s.until((x) => x.lastTimestamp >= lastChange, `catching up to ${lastChange}`);

    const stored = (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as RestEntry[];
    const audit = await fetchEntryAudit(admin, serviceId);
    const getConfigClient = new GrpcTestClient(address);
    const finalConfig = await getConfigClient.getConfig({ serviceId, version: versionLabel });
    getConfigClient.close();
    for (const s of subscribers) s.stop();

    // The run did what it claims: writes before and after the kill, answers lost to the kill,
    // creates, deletes and a re-creation, cancels, and streams cut by the kill.
    const count = (filter: (a: WriteAttempt) => boolean): number =>
      attempts.filter((a) => a.writer >= 0 && filter(a)).length;
    const stats = {
      seed,
      ok: count((a) => a.outcome === 'ok'),
      conflicts: count((a) => a.status === 409),
      rejected: count((a) => a.outcome === 'rejected'),
      unanswered: count((a) => a.outcome === 'unknown'),
      creates: count((a) => a.op === 'create' && a.outcome === 'ok'),
      deletes: count((a) => a.op === 'delete' && a.outcome === 'ok'),
      recreations: run.recreations,
      auditRecords: audit.length,
      calls: subscribers.map((s) => s.segments.length),
      cancels: subscribers.map((s) => s.interruptions),
      events: subscribers.map((s) => s.events.length),
      ms: Date.now() - started,
    };
    expect(okWrites(0)).toBeGreaterThanOrEqual(WRITES_PER_PHASE);
    expect(okWrites(1)).toBeGreaterThanOrEqual(WRITES_PER_PHASE);
    expect(stats.creates).toBeGreaterThan(0);
    expect(stats.deletes).toBeGreaterThan(0);
    expect(stats.recreations).toBeGreaterThan(0);
    for (const s of flaky) expect(s.interruptions).toBeGreaterThanOrEqual(2);
    const cutByKill = subscribers.filter((s, i) =>
      s.segments
        .slice(0, callsBeforeRestart[i])
        .some((seg) => !seg.interrupted && seg.status && seg.status.code !== grpc.status.OK),
    );
    expect(cutByKill.length).toBeGreaterThan(0);
    // Sessions live in the database: the writers' cookies outlive the process.
    expect(writers.map((w) => w.unauthorized)).toEqual(writers.map(() => 0));
    expect(writers.flatMap((w) => w.serverErrors)).toEqual([]);
    // Only cancels, the kill and reconnect attempts while it was down end a stream; never NOT_FOUND or INTERNAL.
    const endings = new Set(subscribers.flatMap((s) => s.segments.map((seg) => seg.status?.code)));
    expect(
      [...endings].filter((c) => c !== grpc.status.CANCELLED && c !== grpc.status.UNAVAILABLE && c !== undefined),
    ).toEqual([]);

    // The committed history, cross-checked with every answer the writers got.
    const history = new ChangeHistory(audit, attempts);
    history.matchAll(subscribers, referenceEvents);
    expect(history.problems.slice(0, 20), 'history').toEqual([]);

    // The stored state, three ways: REST, GetConfig, and a new subscriber's catch-up.
    const storedView: StoredView = new Map(
      stored.map((e) => [e.key, { value: e.rawValue, generation: e.generation, timestamp: isoToMicros(e.updatedAt) }]),
    );
    expect(stored.every((e) => e.rawValue !== null)).toBe(true);
    expect(
      new Map(
        finalConfig.entries.map((e) => [
          e.key,
          { value: e.value ?? null, generation: e.generation, timestamp: microsFromTimestamp(e.timestamp!) },
        ]),
      ),
    ).toEqual(storedView);
    expect(
      new Map(
        referenceEvents
          .filter((e) => e.value !== null)
          .map((e) => [e.key, { value: e.value, generation: e.generation, timestamp: e.timestamp }]),
      ),
    ).toEqual(storedView);

    const problems: string[] = [];
    for (const s of subscribers) {
      // (a) timestamps strictly increase over the subscriber's whole life, across reconnects.
      problems.push(...orderingProblems(s).map((p) => `(a) ${p}`));
      // (b) per key, generations never go back except for a key created again after its deletion.
      problems.push(...history.generationProblems(s).map((p) => `(b) ${p}`));
      // (c) its final view is the stored state: keys, values, generations, change times.
      problems.push(...viewProblems(s, storedView).map((p) => `(c) ${p}`));
      // (d) nothing committed while it was connected was skipped; catch-ups after a reconnect hold
      // every key changed in between, in its latest state.
      problems.push(...history.segmentProblems(s).map((p) => `(d) ${p}`));
    }
    expect(problems.slice(0, 40), `${problems.length} problems`).toEqual([]);
    console.info(`no-lost-change on ${kind}: ${JSON.stringify({ ...stats, undetermined: history.undetermined })}`);
  }, 120_000);
});

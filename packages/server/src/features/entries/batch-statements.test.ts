import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

/**
 * A batch is a fixed number of SQL statements whatever its size: values, deletions and new entries
 * of a write each go in one statement with their audit records in another, while the version is
 * locked. Counted by /metrics, which times every statement the server runs. Both sizes are large
 * enough that PostgreSQL's change feed reads the change from its log (a notice over 8,000 bytes).
 */
/**
 * Statements of the server's own timers that may fall inside every run of a longer call however
 * often it is repeated (the presence refresh every 2 s on a loaded machine). A write costing
 * statements per entry would differ by hundreds between the two sizes (400 more entries).
 */
const TIMER_STATEMENTS = 2;

describe.each(databaseKinds)('statements per batch on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;
  let versionId: string;

  const statements = async (): Promise<number> => {
    const text = (await server.client().get('/metrics')).text;
    return [...text.matchAll(/^db_query_duration_seconds_count\{[^}]*\} (\d+)/gm)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
  };
  /**
   * The statements of a call, the fewest of three runs: the server's own timers (webhook dispatch,
   * session clean-up) run a statement now and then, which must not count as the call's. Timers that
   * run every second would fall into every run of a slow call, so they are set off (beforeAll).
   */
  const counted = async (call: (round: number) => Promise<void>): Promise<number> => {
    let fewest = Infinity;
    for (let round = 0; round < 3; round++) {
      const before = await statements();
      await call(round);
      fewest = Math.min(fewest, (await statements()) - before);
    }
    return fewest;
  };
  const importUrl = () => `/api/configversions/${serviceId}/${versionId}/import?format=json`;
  /** Imports `count` keys `<prefix>:Key<i>` with values `<value><i>`; `createMissing` makes them. */
  const importKeys = async (prefix: string, count: number, value: string, createMissing = false) => {
    const body = Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}:Key${i}`, `${value}${i}`]));
    const flag = createMissing ? '&createMissing=true' : '';
    const plan = await admin.post(`${importUrl()}&dryRun=true${flag}`, body);
    expect(plan.status, plan.text).toBe(200);
    const applied = await admin.post(
      `${importUrl()}&dryRun=false${flag}&basedOn=${encodeURIComponent(plan.body.basedOn as string)}`,
      body,
    );
    expect(applied.status, applied.text).toBe(200);
  };
  const entriesOf = async (prefix: string) =>
    (
      (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as Array<{
        id: string;
        key: string;
        rawValue: string;
        generation: number;
      }>
    ).filter((e) => e.key.startsWith(`${prefix}:`));

  beforeAll(async () => {
    // The check of the database's role (a statement a second on PostgreSQL) and the rollout
    // schedule's look for due rollouts (four a second) would fall inside longer calls only: they
    // are put off beyond the test.
    server = await startTestServer({
      kind,
      args: ['--Database:RoleCheckIntervalMilliseconds=600000', '--Rollouts:TickMilliseconds=600000'],
    });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: `batches-${kind}` })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body.id;
  });
  afterAll(async () => {
    await server?.close();
  });

  it('creates 500 or 900 keys by import with the same statements', async () => {
    const few = await counted((round) => importKeys(`Few${round}`, 500, 'a', true));
    const many = await counted((round) => importKeys(`Many${round}`, 900, 'a', true));
    expect(Math.abs(many - few)).toBeLessThanOrEqual(TIMER_STATEMENTS);
  });

  it('sets 500 or 900 values in a batch, and imports them, with the same statements', async () => {
    const setBatch = async (prefix: string, value: string) => {
      const slice = await entriesOf(prefix);
      const res = await admin.put(
        `/api/configentries/${serviceId}/${versionId}/set`,
        slice.map((e) => ({ id: e.id, rawValue: value, generation: e.generation })),
      );
      expect(res.status, res.text).toBe(200);
    };
    expect(await entriesOf('Many0')).toHaveLength(900);
    // Each round's values are longer than the last, so every batch moves the version's size.
    const few = await counted((round) => setBatch('Few0', `x${'x'.repeat(round + 5)}`));
    const many = await counted((round) => setBatch('Many0', `y${'y'.repeat(round + 5)}`));
    expect(Math.abs(many - few)).toBeLessThanOrEqual(TIMER_STATEMENTS);
    const fewImported = await counted((round) => importKeys('Few1', 500, `b${'b'.repeat(round)}-`));
    const manyImported = await counted((round) => importKeys('Many1', 900, `c${'c'.repeat(round)}-`));
    expect(Math.abs(manyImported - fewImported)).toBeLessThanOrEqual(TIMER_STATEMENTS);
    const values = await entriesOf('Many1');
    expect(values.every((e) => e.rawValue === `ccc-${e.key.slice('Many1:Key'.length)}`)).toBe(true);
  });
});

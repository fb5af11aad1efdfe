import { pino, type Level } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import {
  startTestServer,
  type ApiClient,
  type ApiResponse,
  type TestServer,
} from '@realtime-config/test-support/test-server';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const STACK_LINE = /\n\s+at /;

/** Every error answer seen by this file, checked at the end for stack traces. */
const errorAnswers: Array<{ url: string; text: string }> = [];

function expectProblem(res: ApiResponse, status: number, url = ''): void {
  errorAnswers.push({ url, text: res.text });
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(res.body).toMatchObject({
    status,
    type: expect.any(String),
    title: expect.any(String),
    detail: expect.any(String),
  });
  expect(res.text).not.toMatch(STACK_LINE);
  expect(res.text).not.toContain('    at ');
}

/** The value of one sample line of a Prometheus text exposition, or undefined. */
function sample(metrics: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const labelText = line.slice(name.length + 1, line.indexOf('}'));
    const parsed = Object.fromEntries([...labelText.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => parsed[k] === v)) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe.each(databaseKinds)('operations endpoints on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
  });
  afterAll(() => server?.close());

  it('GET /healthz answers 200 without sign-in', async () => {
    const res = await server.client().get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 without sign-in while the database answers', async () => {
    const res = await server.client().get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready' });
  });

  it('GET /metrics serves request counts, database timings and process metrics without sign-in', async () => {
    const client = server.client();
    for (let i = 0; i < 3; i++) expect((await client.get('/healthz')).status).toBe(200);
    expect((await admin.post('/api/services/search', {})).status).toBe(200);
    expect((await client.get('/api/users')).status).toBe(401);

    const res = await client.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = res.text;
    expect(text).toContain('# TYPE http_requests_total counter');
    expect(
      sample(text, 'http_requests_total', { method: 'GET', route: '/healthz', status: '200' }),
    ).toBeGreaterThanOrEqual(3);
    expect(
      sample(text, 'http_requests_total', { method: 'POST', route: '/api/services/search', status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'http_requests_total', { method: 'GET', route: '/api/users', status: '401' }),
    ).toBeGreaterThanOrEqual(1);
    expect(text).toContain('# TYPE db_query_duration_seconds histogram');
    expect(sample(text, 'db_query_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThan(0);
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);

    // Counters only grow.
    const again = (await client.get('/metrics')).text;
    expect(
      sample(again, 'http_requests_total', { method: 'GET', route: '/metrics', status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(again, 'http_requests_total', { method: 'GET', route: '/healthz', status: '200' })).toBe(
      sample(text, 'http_requests_total', { method: 'GET', route: '/healthz', status: '200' }),
    );
  });

  it('GET /api/openapi.json is an OpenAPI 3.1 document listing every REST path', async () => {
    const res = await server.client().get('/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body.openapi).toMatch(/^3\.1\./);
    const paths = res.body.paths as Record<string, Record<string, unknown>>;
    const expected: Record<string, string[]> = {
      '/api/services/search': ['post'],
      '/api/services': ['post'],
      '/api/services/{serviceId}': ['get', 'put', 'delete'],
      '/api/services/{serviceId}/members': ['get', 'post'],
      '/api/services/{serviceId}/members/{userId}': ['delete'],
      '/api/configversions/{serviceId}': ['get', 'post'],
      '/api/configversions/{serviceId}/{versionId}': ['get', 'put', 'delete'],
      '/api/configentries/{serviceId}/{versionId}': ['get', 'post'],
      '/api/configentries/{serviceId}/{versionId}/set': ['put'],
      '/api/configentries/{serviceId}/{versionId}/{entryId}': ['put', 'delete'],
      '/api/auditlogs/search': ['post'],
      '/api/users': ['get', 'post'],
      '/api/users/{username}': ['get', 'put', 'delete'],
      '/api/auth/me': ['get'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      expect(paths, path).toHaveProperty([path]);
      for (const method of methods) expect(Object.keys(paths[path] ?? {}), `${method} ${path}`).toContain(method);
    }
    // The problem-details answers are documented too.
    const responses = (
      paths['/api/services']?.post as {
        responses: Record<string, { content: Record<string, { schema: { $ref?: string } }> }>;
      }
    ).responses;
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403']));
    const ref = Object.values(responses['401']?.content ?? {})[0]?.schema.$ref ?? '';
    const problem = res.body.components.schemas[ref.replace('#/components/schemas/', '')];
    expect(problem.properties).toHaveProperty('type');
    expect(problem.properties).toHaveProperty('title');
    expect(problem.properties).toHaveProperty('status');
    expect(problem.properties).toHaveProperty('detail');
  });

  it('GET /api/docs serves the interactive documentation page', async () => {
    const first = await server.client().get('/api/docs');
    let page = first;
    if (first.status >= 300 && first.status < 400) {
      const location = first.headers.get('location') ?? '';
      expect(location).toMatch(/^(\.\/|\/api\/docs\/|docs\/)/);
      page = await server.client().get(new URL(location, `${server.baseUrl}/api/docs`).pathname);
    }
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.text).toMatch(/<html/i);
    expect(page.text).toMatch(/swagger/i);
    const slash = await server.client().get('/api/docs/');
    expect(slash.status).toBe(200);
    expect(slash.headers.get('content-type')).toContain('text/html');
  });

  it('echoes a valid x-request-id and generates one otherwise', async () => {
    const sent = await server.client().get('/healthz', { headers: { 'x-request-id': 'trace-abc.123:xyz' } });
    expect(sent.headers.get('x-request-id')).toBe('trace-abc.123:xyz');

    const generated = await server.client().get('/healthz');
    expect(generated.headers.get('x-request-id')).toMatch(UUID);
    const other = await server.client().get('/healthz');
    expect(other.headers.get('x-request-id')).not.toBe(generated.headers.get('x-request-id'));

    // Not echoed when it could inject anything into logs or headers.
    for (const bad of ['has space', 'x'.repeat(129), 'semi;colon']) {
      const res = await server.client().get('/healthz', { headers: { 'x-request-id': bad } });
      expect(res.headers.get('x-request-id')).toMatch(UUID);
    }

    // Error answers carry it too.
    const failed = await server.client().get('/api/users', { headers: { 'x-request-id': 'failing-call-1' } });
    expectProblem(failed, 401, '/api/users');
    expect(failed.headers.get('x-request-id')).toBe('failing-call-1');
  });

  it('answers an unknown path with 404 problem details, signed in or not', async () => {
    for (const client of [server.client(), admin]) {
      for (const url of ['/no/such/path', '/api/nothing-here', '/auth/nothing']) {
        const res = await client.get(url);
        expectProblem(res, 404, url);
        expect(res.body.type).toBe('https://tools.ietf.org/html/rfc9110#section-15.5.5');
      }
    }
    expectProblem(await server.client().post('/no/such/path', { a: 1 }), 404, 'POST /no/such/path');
  });

  it('answers a JSON body over 1 MiB with 413 problem details and stores nothing', async () => {
    const before = (await admin.post('/api/services/search', { pageSize: 500 })).body.entities.length;
    const big = JSON.stringify({ name: 'too-big', description: 'x'.repeat(1024 * 1024) });
    const res = await admin.post('/api/services', big);
    expectProblem(res, 413, 'POST /api/services');
    expect(res.body.type).toBe('https://tools.ietf.org/html/rfc9110#section-15.5.14');
    expect((await admin.post('/api/services/search', { pageSize: 500 })).body.entities.length).toBe(before);

    // Also on the one public endpoint that takes a body.
    const login = await server
      .client()
      .post('/auth/login', JSON.stringify({ username: 'admin', password: 'p'.repeat(1024 * 1024 + 1) }));
    expectProblem(login, 413, 'POST /auth/login');

    // Just under the limit is parsed (and then rejected by validation, as the description is too long).
    const under = JSON.stringify({ name: 'just-under', description: 'x'.repeat(1024 * 1024 - 100) });
    expectProblem(await admin.post('/api/services', under), 400, 'POST /api/services (under)');
  });

  it('answers a gathering of bad requests with problem details and never a stack trace', async () => {
    const cases: Array<[string, string, unknown, string | undefined]> = [
      ['POST', '/api/services', '{"name":', 'application/json'],
      ['POST', '/api/services', 'name=x', 'text/plain'],
      ['POST', '/api/services', { name: 42 }, undefined],
      ['GET', '/api/services/not-a-uuid', undefined, undefined],
      ['POST', '/api/services/search', { pageToken: 'forged!' }, undefined],
      [
        'PUT',
        '/api/configentries/00000000-0000-4000-8000-000000000000/00000000-0000-4000-8000-000000000000/set',
        [],
        undefined,
      ],
      ['GET', '/api/services/00000000-0000-4000-8000-000000000000', undefined, undefined],
    ];
    for (const [method, url, body, contentType] of cases) {
      const res = await admin.request(method, url, { body, ...(contentType ? { contentType } : {}) });
      expect(res.status, `${method} ${url}`).toBeGreaterThanOrEqual(400);
      expectProblem(res, res.status, `${method} ${url}`);
    }
  });

  it('has seen no stack trace in any error answer of this file', () => {
    expect(errorAnswers.length).toBeGreaterThan(10);
    expect(errorAnswers.filter((a) => a.text.includes('    at ') || STACK_LINE.test(a.text))).toEqual([]);
  });
});

/** A pino logger at the given level that keeps every line, parsed, in memory. */
function memoryLogger(level: Level) {
  const lines: Array<{ level: number; msg?: string; path?: string }> = [];
  const logger = pino({ level }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe.each(databaseKinds)('readiness when the database is gone on %s', (kind) => {
  it('answers /readyz with 503 problem details, keeps /healthz at 200, and still shuts down', async () => {
    const server = await startTestServer({ kind });
    try {
      const admin = await server.admin();
      expect((await server.client().get('/readyz')).status).toBe(200);

      await server.internals.database.close();

      const ready = await server.client().get('/readyz');
      expectProblem(ready, 503, '/readyz');
      expect(ready.body).toMatchObject({
        title: 'Service Unavailable',
        type: 'https://tools.ietf.org/html/rfc9110#section-15.6.4',
      });
      expect((await server.client().get('/healthz')).status).toBe(200);

      // A request that needs the database fails with a plain 500, without the cause.
      const failed = await admin.post('/api/services/search', {});
      expect(failed.status).toBeGreaterThanOrEqual(500);
      expectProblem(failed, failed.status, 'search after close');
      expect(failed.text).not.toMatch(/sqlite|postgres|pool|driver|destroy/i);
    } finally {
      await server.close();
    }
    expect(server.listener.address).toBeNull();
  });

  it('logs a failed readiness check as a warning, but not when the configured level is above warn', async () => {
    for (const level of ['info', 'error'] as const) {
      const log = memoryLogger(level);
      const server = await startTestServer({ kind, deps: { logger: log.logger } });
      try {
        expect((await server.client().get('/healthz')).status).toBe(200);
        expect((await server.client().get('/auth/config')).status).toBe(200);
        await server.internals.database.close();
        expect((await server.client().get('/readyz')).status).toBe(503);
      } finally {
        await server.close();
      }
      const readiness = log.lines.filter((line) => /readiness/i.test(line.msg ?? ''));
      if (level === 'info') {
        expect(readiness).toHaveLength(1);
        expect(readiness[0]?.level).toBe(40);
        // Probes do not log every request at info; other routes do.
        expect(log.lines.some((line) => line.level === 30 && line.path === '/auth/config')).toBe(true);
        expect(log.lines.some((line) => line.level === 30 && line.path === '/healthz')).toBe(false);
      } else {
        expect(readiness).toEqual([]);
        expect(log.lines.filter((line) => line.level < 50)).toEqual([]);
      }
    }
  });

  it('answers /readyz with 503 once shutdown has begun', async () => {
    const server = await startTestServer({ kind });
    try {
      expect((await server.client().get('/readyz')).status).toBe(200);
      server.app.drain();
      expectProblem(await server.client().get('/readyz'), 503, '/readyz draining');
      expect((await server.client().get('/healthz')).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

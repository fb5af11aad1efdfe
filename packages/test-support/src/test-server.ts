import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { sql } from 'kysely';
import { composeApp, type App, type AppDependencies, type AppInternals } from '../../server/src/app.js';
import { loadConfig } from '../../server/src/platform/config/load-config.js';
import type { OnePortListener } from '../../server/src/platform/server/one-port-listener.js';
import { createListenerFor } from '../../server/src/serve.js';
import { encodeNotice } from '../../server/src/db/notice-wire.js';
import type { ChangeNotice } from '../../server/src/core/index.js';
import { CHANGE_CHANNEL } from '../../server/src/db/pg-change-feed.js';
import { createTestDatabase, type TestDatabase } from './test-databases.js';

export interface ApiResponse<T = unknown> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
  readonly text: string;
}

export interface RequestOptions {
  /** Sent as is when a string; JSON-encoded otherwise. */
  body?: unknown;
  contentType?: string | null;
  headers?: Record<string, string>;
}

/** A small HTTP client that keeps the session cookie, like a browser would. */
export class ApiClient {
  private cookie: string | null = null;

  constructor(readonly baseUrl: string) {}

  get sessionCookie(): string | null {
    return this.cookie;
  }

  async request<T = any>(method: string, url: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      if (options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json';
    }
    if (this.cookie) headers.cookie = this.cookie;
    const response = await fetch(`${this.baseUrl}${url}`, { method, headers, body, redirect: 'manual' });
    const setCookie = response.headers.getSetCookie();
    for (const c of setCookie) {
      const pair = c.split(';')[0] ?? '';
      this.cookie = /=$/.test(pair) || /Expires=Thu, 01 Jan 1970/i.test(c) ? null : pair;
    }
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  get<T = any>(url: string, options?: RequestOptions) {
    return this.request<T>('GET', url, options);
  }
  post<T = any>(url: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', url, { ...options, body });
  }
  put<T = any>(url: string, body?: unknown, options?: RequestOptions) {
    return this.request<T>('PUT', url, { ...options, body });
  }
  delete<T = any>(url: string, options?: RequestOptions) {
    return this.request<T>('DELETE', url, options);
  }

  async login(username: string, password: string): Promise<this> {
    const res = await this.post('/auth/login', { username, password });
    if (res.status !== 200) throw new Error(`sign-in as ${username} failed: ${res.status} ${res.text}`);
    return this;
  }
}

export interface TestServer {
  readonly app: App;
  /** The database, hub and unit of work behind the app, for tests that prod the storage directly. */
  readonly internals: AppInternals;
  readonly baseUrl: string;
  readonly port: number;
  readonly database: TestDatabase;
  readonly listener: OnePortListener;
  /** A client without a session. */
  client(): ApiClient;
  /** A client signed in as the seeded admin. */
  admin(): Promise<ApiClient>;
  /**
   * Resolves once every change committed so far has reached this server's change hub. With
   * PostgreSQL changes arrive through LISTEN, after the REST answer; a marker NOTIFY sent now
   * arrives after all of them, because notifications are delivered in commit order.
   */
  flushChanges(): Promise<void>;
  /**
   * The change notices of a version that `fn`'s writes publish: changes committed before are
   * flushed first (with PostgreSQL they arrive through LISTEN, a moment later), so they are not counted.
   */
  noticesDuring(versionId: string, fn: () => Promise<unknown>): Promise<ChangeNotice[]>;
  /** Creates a Local user with the given role and returns a client signed in as it. */
  userWithRole(username: string, role: 'admin' | 'developer'): Promise<ApiClient>;
  close(): Promise<void>;
}

export const ADMIN_PASSWORD = 'admin-password-for-tests';

export interface StartOptions {
  database?: TestDatabase;
  kind?: 'sqlite' | 'postgres';
  /** Extra `--Section:Key=value` arguments. */
  args?: readonly string[];
  deps?: AppDependencies;
}

/** Builds the real app from real configuration and serves it on a loopback port. */
export async function startTestServer(options: StartOptions = {}): Promise<TestServer> {
  const database = options.database ?? (await createTestDatabase(options.kind ?? 'sqlite'));
  const cwd = mkdtempSync(path.join(tmpdir(), 'rc-test-'));
  const config = loadConfig({
    cwd,
    env: {},
    argv: [
      '--Server:Port=0',
      '--Server:Host=127.0.0.1',
      '--Authentication:Provider=Local',
      `--Authentication:Local:DefaultAdminPassword=${ADMIN_PASSWORD}`,
      '--Logging:Level=silent',
      // As the shipped appsettings.json: suites that test gRPC credentials turn it on.
      '--Grpc:RequireAuthentication=false',
      ...database.args,
      ...(options.args ?? []),
    ],
  });
  const { app, internals } = await composeApp(config, options.deps);
  try {
    await app.start();
  } catch (error) {
    await app.close();
    throw error;
  }
  const listener = createListenerFor(app);
  const { port } = await listener.listen(0, '127.0.0.1');
  const baseUrl = `${config.server.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const adminName = config.authentication.local.defaultAdminUsername;
  let closed = false;
  const server: TestServer = {
    app,
    internals,
    baseUrl,
    port,
    database,
    listener,
    client: () => new ApiClient(baseUrl),
    admin: () => new ApiClient(baseUrl).login(adminName, ADMIN_PASSWORD),
    async flushChanges() {
      if (internals.database.dialect !== 'postgres') return;
      const marker = randomUUID();
      const arrived = new Promise<void>((resolve) => {
        const stop = internals.hub.subscribe(marker, () => {
          stop();
          resolve();
        });
      });
      const payload = encodeNotice({
        kind: 'version-updated',
        serviceId: marker,
        versionId: marker,
        timestamp: 1,
        entries: [],
      });
      await sql`select pg_notify(${CHANGE_CHANNEL}, ${payload})`.execute(internals.database.db);
      await arrived;
    },
    async noticesDuring(versionId, fn) {
      await server.flushChanges();
      const seen: ChangeNotice[] = [];
      const stop = internals.hub.subscribe(versionId, (n) => seen.push(n));
      try {
        await fn();
        await server.flushChanges();
      } finally {
        stop();
      }
      return seen;
    },
    async userWithRole(username, role) {
      const admin = await server.admin();
      const password = `${username}-password-for-tests`;
      const created = await admin.post('/api/users', { username, password, role });
      if (created.status !== 201 && created.status !== 409) throw new Error(`creating ${username}: ${created.text}`);
      return new ApiClient(baseUrl).login(username, password);
    },
    async close() {
      if (closed) return;
      closed = true;
      await listener.close({ timeoutMs: 2000 });
      await app.close();
      if (!options.database) await database.drop();
    },
  };
  return server;
}

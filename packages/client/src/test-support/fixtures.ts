/**
 * What the client's tests share: the real server (started through the server's own test support,
 * which the client's source never imports), REST helpers, a recording logger and waiting for
 * conditions instead of sleeping.
 */
import {
  entriesByKey,
  readMetric,
  setValue,
  type RestClient,
  type RestEntry,
} from '@realtime-config/test-support/realtime-fixtures';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import type { ConfigLogger } from '../index.js';

export { databaseKinds } from '@realtime-config/test-support/test-databases';
export { entriesByKey, readMetric, setValue, type ApiClient, type RestEntry, type TestServer };

/** A server on a loopback port with an admin session and one fresh service. */
export interface Fixture {
  readonly server: TestServer;
  readonly admin: ApiClient;
  readonly url: string;
  close(): Promise<void>;
  /** Creates a service through REST; returns its id. */
  service(name?: string): Promise<string>;
}

let services = 0;

export async function startFixture(kind: 'sqlite' | 'postgres', args: readonly string[] = []): Promise<Fixture> {
  // Stated explicitly: the server's default for Grpc:RequireAuthentication is true.
  const server = await startTestServer({ kind, args: ['--Grpc:RequireAuthentication=false', ...args] });
  const admin = await server.admin();
  return {
    server,
    admin,
    url: server.baseUrl,
    close: () => server.close(),
    async service(name = `svc-${process.pid}-${++services}`) {
      const res = await admin.post('/api/services', { name });
      if (res.status !== 201) throw new Error(`creating service ${name}: ${res.status} ${res.text}`);
      return res.body.id as string;
    },
  };
}

/** The id of the version with this label, through REST. */
export async function versionIdOf(admin: ApiClient, serviceId: string, label: string): Promise<string | undefined> {
  const res = await admin.get<Array<{ id: string; versionLabel: string }>>(`/api/configversions/${serviceId}`);
  return res.body.find((v) => v.versionLabel === label)?.id;
}

/** Sets several entries in one batch (one change event); keys to raw values. */
export async function setValues(
  admin: RestClient,
  serviceId: string,
  versionId: string,
  values: Record<string, string | null>,
): Promise<void> {
  const entries = await entriesByKey(admin, serviceId, versionId);
  const body = Object.entries(values).map(([key, rawValue]) => {
    const entry = entries[key];
    if (!entry) throw new Error(`no entry ${key}`);
    return { id: entry.id, rawValue, generation: entry.generation };
  });
  const res = await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, body);
  if (res.status !== 200) throw new Error(`setting ${Object.keys(values).join(', ')}: ${res.status} ${res.text}`);
}

/** A logger that keeps every message, by level. */
export function recordingLogger(): Required<ConfigLogger> & {
  readonly messages: Record<keyof ConfigLogger, string[]>;
} {
  const messages: Record<keyof ConfigLogger, string[]> = { warn: [], error: [], info: [], debug: [] };
  return {
    messages,
    warn: (m) => messages.warn.push(m),
    error: (m) => messages.error.push(m),
    info: (m) => messages.info.push(m),
    debug: (m) => messages.debug.push(m),
  };
}

/** Polls `condition` (every 20 ms) until it holds; fails naming `what` after `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** gRPC calls of one method the server has received (every serving path added up), from /metrics. */
export async function grpcCalls(rest: ApiClient, method: string): Promise<number> {
  const text = (await rest.get<string>('/metrics')).text;
  return text
    .split('\n')
    .filter((line) => line.startsWith('grpc_calls_total{') && line.includes(`method="${method}"`))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** The number of StartSubscribe streams the server's /metrics says are open. */
export function openSubscriptions(rest: ApiClient): Promise<number> {
  return readMetric(rest, 'realtime_open_subscriptions');
}

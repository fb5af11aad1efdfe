import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { timestampFromMicros, ValueType } from '@realtime-config/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { HttpsApiClient } from '@realtime-config/test-support/https-api-client';
import {
  entriesByKey,
  registerVersion,
  rowOf,
  setValue,
  type EventRow,
  type RestClient,
} from '@realtime-config/test-support/realtime-fixtures';
import {
  createSelfSignedCertificate,
  type SelfSignedCertificate,
} from '@realtime-config/test-support/self-signed-certificate';
import { startTestServer, type TestServer } from '@realtime-config/test-support/test-server';

/** Debian's interpreter, where python3-grpcio and python3-protobuf install; not a pyenv one on PATH. */
const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('../../../test/python/grpc_client.py', import.meta.url));
const MISSING = '00000000-0000-4000-8000-000000000000';

type Line =
  | { rpc: 'IsVersionExists'; versionId: string | null }
  | { rpc: 'GetConfig'; entries: EventRow[] }
  | { rpc: 'StartSubscribe'; events: EventRow[] }
  | { done: number }
  | { error: { rpc: string; code: string; details: string } };

/** Only Debian's packages: no user site-packages, no PYTHONPATH from the developer's shell. */
function pythonEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PYTHONNOUSERSITE: '1', PYTHONUNBUFFERED: '1' };
  delete env.PYTHONPATH;
  delete env.PYTHONHOME;
  return env;
}

/** Fails (never skips) when the interpreter lacks grpc: CI installs it, and so must a developer. */
function requirePythonGrpc(): void {
  const probe = spawnSync(PYTHON, ['-c', 'import grpc, google.protobuf; print(grpc.__version__)'], {
    env: pythonEnv(),
    encoding: 'utf8',
  });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `${PYTHON} cannot import grpc and google.protobuf (${probe.error?.message ?? probe.stderr.trim().split('\n').at(-1)}). ` +
        'Install them with: apt-get install -y python3-grpcio python3-protobuf',
    );
  }
}

/** One run of grpc_client.py, its stdout parsed line by line. */
class PythonClient {
  readonly lines: Line[] = [];
  stderr = '';
  exitCode: number | null = null;
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;
  private partial = '';

  constructor(args: readonly string[]) {
    this.child = spawn(PYTHON, [SCRIPT, ...args], { env: pythonEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (this.partial + chunk).split('\n');
      this.partial = parts.pop() ?? '';
      for (const part of parts) if (part.trim()) this.lines.push(JSON.parse(part) as Line);
    });
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => {
      this.child.once('close', (code) => {
        this.exitCode = code;
        resolve(code);
      });
      this.child.once('error', (err) => {
        this.stderr += String(err);
        resolve(null);
      });
    });
  }

  of<R extends string>(rpc: R): Array<Extract<Line, { rpc: R }>> {
    return this.lines.filter((l): l is Extract<Line, { rpc: R }> => 'rpc' in l && l.rpc === rpc);
  }

  async until(predicate: (c: this) => boolean, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      if (Date.now() > deadline || (this.exitCode !== null && !predicate(this))) {
        throw new Error(
          `python client: condition not met; exit ${this.exitCode}; stdout ${JSON.stringify(this.lines)}; stderr ${this.stderr}`,
        );
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Waits for the script to exit; kills it (by its own pid) if it has not after the timeout. */
  async finish(timeoutMs = 30_000): Promise<number | null> {
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  kill(): void {
    if (this.exitCode === null) this.child.kill('SIGKILL');
  }
}

/**
 * Registers a version with grpc-js, has the Python client read it and subscribe, changes it through
 * REST, and checks the Python client saw exactly what grpc-js sees.
 */
async function snapshotThenLiveChange(options: {
  rest: RestClient;
  grpcClient: GrpcTestClient;
  target: string;
  extraArgs?: readonly string[];
  label: string;
  started: PythonClient[];
}) {
  const { rest, grpcClient, label } = options;
  const serviceId = (await rest.post('/api/services', { name: `python-${label}` })).body.id as string;
  const versionId = await registerVersion(grpcClient, serviceId, label, [
    { key: 'Db:Timeout', valueType: ValueType.NUMBER, value: '30' },
    { key: 'Feature:Empty', value: '' },
    { key: 'Feature:Nothing' },
    { key: 'Greeting', value: 'grüß dich ✓' },
  ]);
  const entries = await entriesByKey(rest, serviceId, versionId);
  const expectedSnapshot = (await grpcClient.getConfig({ serviceId, version: label })).entries.map(rowOf);

  const python = new PythonClient([
    '--target',
    options.target,
    '--service-id',
    serviceId,
    '--version',
    label,
    '--events',
    '2',
    ...(options.extraArgs ?? []),
  ]);
  options.started.push(python);
  await python.until((p) => p.of('StartSubscribe').length >= 1);

  expect(python.of('IsVersionExists')).toEqual([{ rpc: 'IsVersionExists', versionId }]);
  expect(python.of('GetConfig')).toEqual([{ rpc: 'GetConfig', entries: expectedSnapshot }]);
  expect(expectedSnapshot.map((e) => [e.key, e.value, e.generation])).toEqual([
    ['Db:Timeout', '30', 1],
    ['Feature:Empty', '', 1],
    ['Feature:Nothing', null, 1],
    ['Greeting', 'grüß dich ✓', 1],
  ]);
  // The backfill (timestamp 0): every entry, as grpc-js receives it.
  const reference = grpcClient.subscribe({ serviceId, versionId, timestamp: timestampFromMicros(0) });
  try {
    await reference.until((s) => s.events.length >= 1);
    expect(python.of('StartSubscribe')[0]!.events).toEqual(reference.events[0]!.events.map(rowOf));

    // A live change through REST reaches the Python stream, then the script stops after 2 events.
    await setValue(options.rest, serviceId, versionId, entries['Feature:Nothing']!, 'now set');
    await reference.until((s) => s.events.length >= 2);
    expect(await python.finish()).toBe(0);
  } finally {
    reference.cancel();
  }
  const streamed = python.of('StartSubscribe');
  expect(streamed).toHaveLength(2);
  expect(streamed[1]!.events).toEqual(reference.events[1]!.events.map(rowOf));
  expect(streamed[1]!.events).toMatchObject([
    { key: 'Feature:Nothing', value: 'now set', generation: 2, type: ValueType.STRING },
  ]);
  expect(streamed[1]!.events[0]!.timestamp).toBeGreaterThan(Math.max(...expectedSnapshot.map((e) => e.timestamp)));
  expect(python.lines.at(-1)).toEqual({ done: 2 });
  return { serviceId, versionId };
}

describe('a Python grpcio client (Debian python3-grpcio)', () => {
  const started: PythonClient[] = [];

  beforeAll(() => requirePythonGrpc());
  afterEach(() => {
    for (const p of started.splice(0)) p.kill();
  });

  describe('over h2c', () => {
    let server: TestServer;
    let grpcClient: GrpcTestClient;

    beforeAll(async () => {
      server = await startTestServer();
      grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`);
    });
    afterAll(async () => {
      grpcClient?.close();
      await server?.close();
    });

    it('reads the snapshot and the backfill, and receives a change made through REST', async () => {
      const rest = await server.admin();
      await snapshotThenLiveChange({ rest, grpcClient, target: `127.0.0.1:${server.port}`, label: '1.0.0', started });
    });

    it('gets the documented statuses: INVALID_ARGUMENT, NOT_FOUND, and no version for an unknown label', async () => {
      const rest = await server.admin();
      const serviceId = (await rest.post('/api/services', { name: 'python-errors' })).body.id as string;
      const target = `127.0.0.1:${server.port}`;

      const malformed = new PythonClient(['--target', target, '--service-id', 'not-a-uuid', '--version', '1']);
      const unknownVersion = new PythonClient([
        '--target',
        target,
        '--service-id',
        serviceId,
        '--version',
        '1',
        '--version-id',
        MISSING,
      ]);
      const unknownLabel = new PythonClient([
        '--target',
        target,
        '--service-id',
        serviceId,
        '--version',
        'no-such-label',
      ]);
      started.push(malformed, unknownVersion, unknownLabel);

      expect(await malformed.finish()).toBe(3);
      expect(malformed.lines).toEqual([
        { error: { rpc: 'IsVersionExists', code: 'INVALID_ARGUMENT', details: expect.stringContaining('service_id') } },
      ]);
      expect(await unknownVersion.finish()).toBe(3);
      expect(unknownVersion.lines).toEqual([
        { rpc: 'GetConfig', entries: [] },
        { error: { rpc: 'StartSubscribe', code: 'NOT_FOUND', details: expect.any(String) } },
      ]);
      expect(await unknownLabel.finish()).toBe(0);
      expect(unknownLabel.lines).toEqual([{ rpc: 'IsVersionExists', versionId: null }]);
    });
  });

  describe('over TLS', () => {
    let certificate: SelfSignedCertificate;
    let server: TestServer;
    let rest: HttpsApiClient;
    let grpcClient: GrpcTestClient;

    beforeAll(async () => {
      certificate = createSelfSignedCertificate();
      server = await startTestServer({ args: certificate.serverArgs });
      rest = await new HttpsApiClient(server.baseUrl, certificate.cert).login();
      grpcClient = new GrpcTestClient(`127.0.0.1:${server.port}`, grpc.credentials.createSsl(certificate.cert), {
        'grpc.ssl_target_name_override': 'localhost',
        'grpc.default_authority': 'localhost',
      });
    });
    afterAll(async () => {
      grpcClient?.close();
      rest?.close();
      await server?.close();
      certificate?.remove();
    });

    it('reads the snapshot and the backfill, and receives a change made through REST', async () => {
      await snapshotThenLiveChange({
        rest,
        grpcClient,
        target: `127.0.0.1:${server.port}`,
        extraArgs: ['--ca', certificate.certPath],
        label: 'tls',
        started,
      });
    });
  });
});

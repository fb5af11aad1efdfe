import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '@realtime-config/test-support/test-server';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const EXAMPLE = path.join(repoRoot, 'examples/node-app/main.mjs');

/** Runs the example as the README does (the SDK from its sources here), until it exits or prints `until`. */
function runExample(env: Record<string, string>, until?: RegExp) {
  const child = spawn(process.execPath, ['--conditions=@realtime-config/source', '--import', 'tsx', EXAMPLE], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (until?.test(stdout)) child.kill('SIGTERM');
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
}

/** The example application of the README (examples/node-app), as a new user first runs it. */
describe('the example application', () => {
  let server: TestServer;
  let serviceId: string;

  beforeAll(async () => {
    server = await startTestServer({ args: ['--Grpc:RequireAuthentication=true'] });
    serviceId = (await (await server.admin()).post('/api/services', { name: 'example-app' })).body.id as string;
  });
  afterAll(() => server?.close());

  it('says in one line what to do when the server wants an API key, without a stack trace', async () => {
    const run = await runExample({ RC_URL: server.baseUrl, RC_SERVICE_ID: serviceId });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^Cannot connect to http:\/\/127\.0\.0\.1:\d+ \(UNAUTHENTICATED\): .*RC_API_KEY/),
    ]);
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });

  it('prints its configuration with an API key of the service', async () => {
    const admin = await server.admin();
    const key = (await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'example' })).body.key as string;
    const run = await runExample(
      { RC_URL: server.baseUrl, RC_SERVICE_ID: serviceId, RC_API_KEY: key },
      /"TimeoutSeconds": 30/,
    );
    expect(run.stdout).toContain('configuration (live');
    expect(run.stdout).toContain('"TimeoutSeconds": 30');
  });
});

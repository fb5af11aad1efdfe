import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '@realtime-config/test-support/test-server';
import { SCHEMA_WORKER_CSP } from './index.js';

/**
 * The console checks entry schemas with Ajv, which compiles with `new Function`: only the schema
 * checker's worker may evaluate code (its own policy); the document and every other file may not.
 */
describe("the console's schema-checker worker", () => {
  const consoleDir = mkdtempSync(path.join(tmpdir(), 'rc-console-worker-'));
  let server: TestServer;

  beforeAll(async () => {
    mkdirSync(path.join(consoleDir, 'assets'));
    writeFileSync(path.join(consoleDir, 'index.html'), '<!doctype html><script src="/assets/index-C1.js"></script>');
    writeFileSync(path.join(consoleDir, 'assets', 'index-C1.js'), 'new Worker("/assets/schema-worker-W1.js");');
    writeFileSync(path.join(consoleDir, 'assets', 'schema-worker-W1.js'), 'postMessage(1);');
    server = await startTestServer({ args: [`--Server:ConsoleDir=${consoleDir}`] });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(consoleDir, { recursive: true, force: true });
  });

  it('is served with a policy that allows evaluation and nothing else; the page keeps its strict one', async () => {
    const client = server.client();
    const worker = await client.get('/assets/schema-worker-W1.js');
    expect(worker.status).toBe(200);
    expect(worker.headers.get('content-security-policy')).toBe(SCHEMA_WORKER_CSP);
    expect(SCHEMA_WORKER_CSP).toBe("default-src 'none'; script-src 'self' 'unsafe-eval'");

    const page = await client.get('/');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self';");
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe-eval');
    const script = await client.get('/assets/index-C1.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-security-policy')).not.toContain('unsafe-eval');
  });
});

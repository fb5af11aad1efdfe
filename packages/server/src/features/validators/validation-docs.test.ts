import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

const repoRoot = fileURLToPath(new URL('../../../../../', import.meta.url));
const doc = readFileSync(path.join(repoRoot, 'docs/validation.md'), 'utf8');

/** The first fenced block of a language under a `##` heading. */
function block(heading: string, language: string): string {
  const start = doc.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no section "${heading}"`);
  const match = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(doc.slice(start));
  if (!match?.[1]) throw new Error(`no ${language} block under "${heading}"`);
  return match[1];
}

async function freePort(): Promise<number> {
  const probe = net.createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** The validator receiver of docs/validation.md runs as written, against a real server. */
describe('the validator receiver of docs/validation.md', () => {
  let server: TestServer;
  let admin: ApiClient;
  let receiver: ChildProcess | undefined;
  // Inside the repository, so that `standardwebhooks` resolves from its node_modules as from an application's.
  const dir = mkdtempSync(path.join(repoRoot, 'packages/server/.validation-docs-'));

  beforeAll(async () => {
    server = await startTestServer({ args: ['--Webhooks:AllowPrivateNetworks=true'] });
    admin = await server.admin();
  });
  afterAll(async () => {
    receiver?.kill();
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  });

  it('lets a timeout of 60 through and refuses one of 200 with its message', async () => {
    const serviceId = (await admin.post('/api/services', { name: 'documented' })).body.id;
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.5.0' })).body.id;
    const base = `/api/configentries/${serviceId}/${versionId}`;
    const entry = (await admin.post(base, { key: 'Http:TimeoutSeconds', valueType: 6, rawValue: '30' })).body;
    const port = await freePort();
    const validator = await admin.post(`/api/services/${serviceId}/validators`, { url: `http://127.0.0.1:${port}/` });
    expect(validator.status, validator.text).toBe(201);

    const script = path.join(dir, 'validator.mjs');
    writeFileSync(script, block('A validator receiver', 'js'));
    receiver = spawn(process.execPath, [script], {
      env: { ...process.env, VALIDATOR_SECRET: validator.body.secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      receiver!.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('validator ready') && resolve());
      receiver!.once('exit', (code) => reject(new Error(`the receiver exited with ${code}`)));
    });

    const passed = await admin.put(`${base}/set`, [{ id: entry.id, rawValue: '60', generation: 1 }]);
    expect(passed.status, passed.text).toBe(200);
    const refused = await admin.put(`${base}/set`, [{ id: entry.id, rawValue: '200', generation: 2 }]);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.violations).toEqual([
      {
        key: null,
        entryId: null,
        instancePath: '',
        keyword: 'validator',
        message: 'Http:TimeoutSeconds may be at most 120 in 1.5.0',
      },
    ]);
  });
});

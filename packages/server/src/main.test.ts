import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const mainTs = fileURLToPath(new URL('./main.ts', import.meta.url));
// The child runs in a temporary folder, so the TypeScript loader is given by absolute URL.
const tsxLoader = pathToFileURL(
  path.join(path.dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/loader.mjs'),
).href;

interface Running {
  child: ChildProcess;
  port: number;
  output: () => string;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function run(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): ChildProcess {
  const child = spawn(
    process.execPath,
    ['--conditions=@realtime-config/source', '--import', tsxLoader, mainTs, ...args],
    {
      cwd: options.cwd ?? mkdtempSync(path.join(tmpdir(), 'rc-main-')),
      env: { PATH: process.env.PATH ?? '', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  return child;
}

async function start(args: string[] = []): Promise<Running> {
  const child = run([
    '--Server:Port=0',
    '--Server:Host=127.0.0.1',
    '--Authentication:Provider=Local',
    '--Database:DataDir=memory://',
    ...args,
  ]);
  let output = '';
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      output += d.toString();
      const match = /listening on https?:\/\/[\d.]+:(\d+)/.exec(output);
      if (match && output.includes('"msg":"ready: connected to the database"')) resolve(Number(match[1]));
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
  return { child, port, output: () => output };
}

describe('the server process', () => {
  it('refuses to start on a bad configuration value, naming the key', async () => {
    const child = run(['--Server:Port=http']);
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).not.toBe(0);
    expect(stderr).toContain('Server:Port');
    expect(stderr).not.toContain('    at ');
  });

  it('refuses to start with a provider whose required keys are missing', async () => {
    const cwd = mkdtempSync(path.join(tmpdir(), 'rc-main-'));
    writeFileSync(path.join(cwd, 'appsettings.json'), JSON.stringify({ Authentication: { Provider: 'OpenId' } }));
    const child = run([], { cwd });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).not.toBe(0);
    expect(stderr).toContain('Authentication:OpenId:Authority');
  });

  it('logs a warning while the admin has the built-in default password', async () => {
    const server = await start();
    await fetch(`http://127.0.0.1:${server.port}/healthz`);
    expect(server.output()).toMatch(/"level":40[^\n]*default password/);
    server.child.kill('SIGTERM');
    await once(server.child, 'exit');
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'on %s finishes the in-flight request, refuses new ones and exits 0',
    async (signal) => {
      const server = await start();
      // A keep-alive connection with a request that is still being answered when the signal arrives:
      // sign-in costs a PBKDF2 derivation, long enough to be in flight.
      const agent = new http.Agent({ keepAlive: true });
      const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: server.port,
            path: '/auth/login',
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json' },
          },
          (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify({ username: 'admin', password: 'admin' }));
      });
      await new Promise((r) => setTimeout(r, 20));
      server.child.kill(signal);
      const answer = await inFlight;
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ id: 'admin' });
      const [code] = (await once(server.child, 'exit')) as [number];
      expect(code).toBe(0);
      await expect(fetch(`http://127.0.0.1:${server.port}/healthz`)).rejects.toThrow();
      agent.destroy();
    },
  );
});

import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  findFreePort,
  killServerProcesses,
  serverProcessArgs,
  startServerProcess,
  type ServerProcess,
} from '@realtime-config/test-support/server-process';
import { createTestDatabase } from '@realtime-config/test-support/test-databases';
import { ADMIN_PASSWORD, ApiClient, startTestServer, type TestServer } from '@realtime-config/test-support/test-server';

/**
 * The real server (main.ts) as child processes sharing one database: `start()` serves on the
 * fixed port the clients know, `startElsewhere()` on another port, to change values while the
 * clients' server is down; `startInProcess()` serves that database from the tests' own process,
 * which starts in a fraction of a child's time, for changes made by another instance.
 */
export interface ServerProcesses {
  readonly port: number;
  readonly url: string;
  start(port?: number): Promise<ServerProcess>;
  startElsewhere(): Promise<ServerProcess>;
  /** Another instance on the same database, in this process, on a port of its own; closed by cleanup(). */
  startInProcess(): Promise<TestServer>;
  /** SIGTERM (graceful: streams end with UNAVAILABLE) and wait for the exit. */
  stop(server: ServerProcess): Promise<void>;
  admin(server: ServerProcess): Promise<ApiClient>;
  cleanup(): Promise<void>;
}

export async function serverProcesses(
  kind: 'sqlite' | 'postgres',
  args: readonly string[] = [],
): Promise<ServerProcesses> {
  const port = await findFreePort();
  let databaseArgs: readonly string[];
  let dropDatabase = (): Promise<void> => Promise.resolve();
  if (kind === 'sqlite') {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'rc-client-'));
    databaseArgs = [`--Database:DataDir=${dataDir}`];
    dropDatabase = () => Promise.resolve(rmSync(dataDir, { recursive: true, force: true }));
  } else {
    const database = await createTestDatabase('postgres');
    databaseArgs = database.args;
    dropDatabase = () => database.drop();
  }
  const inProcess: TestServer[] = [];
  const start = (p = port) => startServerProcess({ args: serverProcessArgs(p, [...databaseArgs, ...args]) });
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    start,
    startElsewhere: async () => start(await findFreePort()),
    async startInProcess() {
      const database = { name: kind, args: databaseArgs, drop: () => Promise.resolve() };
      const server = await startTestServer({ database, args });
      inProcess.push(server);
      return server;
    },
    async stop(server) {
      if (server.child.exitCode !== null || server.child.signalCode !== null) return;
      const exited = once(server.child, 'exit');
      server.child.kill('SIGTERM');
      await exited;
    },
    admin: (server) => new ApiClient(server.baseUrl).login('admin', ADMIN_PASSWORD),
    async cleanup() {
      await Promise.all(inProcess.splice(0).map((server) => server.close()));
      await killServerProcesses();
      await dropDatabase();
    },
  };
}

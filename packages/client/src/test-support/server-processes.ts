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
import { ADMIN_PASSWORD, ApiClient } from '@realtime-config/test-support/test-server';

/**
 * The real server (main.ts) as child processes sharing one database: `start()` serves on the
 * fixed port the clients know, `startElsewhere()` on another port, to change values while the
 * clients' server is down.
 */
export interface ServerProcesses {
  readonly port: number;
  readonly url: string;
  start(port?: number): Promise<ServerProcess>;
  startElsewhere(): Promise<ServerProcess>;
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
  const start = (p = port) => startServerProcess({ args: serverProcessArgs(p, [...databaseArgs, ...args]) });
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    start,
    startElsewhere: async () => start(await findFreePort()),
    async stop(server) {
      if (server.child.exitCode !== null || server.child.signalCode !== null) return;
      const exited = once(server.child, 'exit');
      server.child.kill('SIGTERM');
      await exited;
    },
    admin: (server) => new ApiClient(server.baseUrl).login('admin', ADMIN_PASSWORD),
    async cleanup() {
      await killServerProcesses();
      await dropDatabase();
    },
  };
}

/**
 * Load-generator processes: separate from the server (as real clients are) and from the driver,
 * talking to the driver over IPC with structured-clone serialization (typed arrays travel as such).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onCleanup } from './common.js';
import { TSX, withHighFileLimit } from './server.js';

export interface WorkerMessage {
  readonly type: string;
}

export class WorkerProcess<Out extends WorkerMessage> {
  private readonly child: ChildProcess;
  private readonly listeners = new Set<(message: Out) => void>();
  private readonly exited: Promise<void>;
  private output = '';
  private readonly unregister: () => void;

  /** `script` is relative to this folder; `nodeFlags` go before it, `args` after it. */
  constructor(
    readonly name: string,
    script: string,
    options: { nodeFlags?: readonly string[]; args?: readonly string[] } = {},
  ) {
    const file = fileURLToPath(new URL(script, import.meta.url));
    const [command, args] = withHighFileLimit(process.execPath, [
      ...(options.nodeFlags ?? []),
      '--import',
      TSX,
      file,
      ...(options.args ?? []),
    ]);
    this.child = spawn(command, args, {
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-10_000);
      process.stderr.write(chunk);
    });
    this.child.on('message', (message) => {
      for (const listener of this.listeners) listener(message as Out);
    });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.unregister = onCleanup(
      () => this.stop(),
      () => {
        if (this.running) this.child.kill('SIGKILL');
      },
    );
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  private get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  send(message: WorkerMessage & Record<string, unknown>): void {
    this.child.send(message);
  }

  onMessage(listener: (message: Out) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The next message of a type; rejects when the worker exits first or after `timeoutMs`. */
  waitFor<T extends Out['type']>(type: T, timeoutMs: number): Promise<Extract<Out, { type: T }>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`${this.name}: no '${type}' within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.onMessage((message) => {
        if (message.type !== type) return;
        clearTimeout(timer);
        off();
        resolve(message as Extract<Out, { type: T }>);
      });
      void this.exited.then(() => {
        clearTimeout(timer);
        off();
        reject(new Error(`${this.name} exited before '${type}':\n${this.output}`));
      });
    });
  }

  /** Asks it to close its connections and exit; kills it when it has not after 10 s. */
  async stop(): Promise<void> {
    this.unregister();
    if (!this.running) return;
    if (this.child.connected) this.child.send({ type: 'exit' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Inside a worker: leave when the driver goes away, so nothing outlives a killed benchmark. */
export function exitWithParent(onExit: () => void): void {
  process.on('disconnect', () => {
    onExit();
    process.exit(0);
  });
  process.on('message', (message: WorkerMessage) => {
    if (message.type !== 'exit') return;
    onExit();
    process.exit(0);
  });
}

export function sendToParent(message: WorkerMessage & Record<string, unknown>): void {
  process.send?.(message);
}

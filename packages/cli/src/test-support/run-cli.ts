import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built binary, as `npm install` links it. */
export const CLI_BIN = fileURLToPath(new URL('../../bin/realtime-config.js', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A user of the CLI: their own config directory (where `login` keeps its file) and server. */
export class CliUser {
  readonly home = mkdtempSync(path.join(tmpdir(), 'rc-cli-home-'));

  constructor(
    readonly serverUrl: string,
    private readonly extraEnv: Record<string, string> = {},
    /** The command and its first arguments: the repository's built binary, or an installed one. */
    private readonly command: readonly [string, ...string[]] = [process.execPath, CLI_BIN],
  ) {}

  get env(): NodeJS.ProcessEnv {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('REALTIME_CONFIG_')),
    );
    return { ...inherited, REALTIME_CONFIG_HOME: this.home, REALTIME_CONFIG_URL: this.serverUrl, ...this.extraEnv };
  }

  /** Runs the built binary to its end, with `stdin` as standard input. */
  run(args: readonly string[], stdin = ''): Promise<CliResult> {
    const child = this.spawn(args);
    child.stdin?.end(stdin);
    return completion(child);
  }

  /** Starts the binary and leaves it running (for `watch`); everything it writes is kept for waitForOutput. */
  spawn(args: readonly string[]): ChildProcess {
    const [file, ...first] = this.command;
    const child = spawn(file, [...first, ...args], { env: this.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const transcript = { text: '' };
    transcripts.set(child, transcript);
    const keep = (chunk: Buffer) => (transcript.text += chunk.toString());
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    return child;
  }
}

export function completion(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** What each spawned child has written so far (stdout and stderr interleaved), from its start. */
const transcripts = new WeakMap<ChildProcess, { text: string }>();

/**
 * Resolves once the child has written `text` to stdout or stderr, at any time since it started
 * (output that came before the call counts: a change may reach `watch` before the REST answer
 * reaches the test); fails with what it wrote after 30 s.
 */
export function waitForOutput(child: ChildProcess, text: string): Promise<void> {
  const transcript = transcripts.get(child);
  if (!transcript) throw new Error('waitForOutput needs a child started with CliUser.spawn');
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      child.stdout?.off('data', look);
      child.stderr?.off('data', look);
    };
    // Listeners run in the order they were added, so the transcript already holds the chunk.
    const look = () => {
      if (!transcript.text.includes(text)) return;
      stop();
      resolve();
    };
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`the CLI did not write "${text}" within 30 s; it wrote:\n${transcript.text}`));
    }, 30_000);
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    look();
  });
}

import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** Runs a command to its end; throws with its output when it fails. */
export function run(command: string, args: readonly string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** A program's output so far, and a wait for a line that matches. */
export function started(child: ChildProcess) {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    output: () => output,
    async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(output)) {
        if (child.exitCode !== null || Date.now() > deadline) {
          throw new Error(`no ${pattern} in the output (exit ${child.exitCode}):\n${output}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

/** A workspace package as a user installs it from its tarball. */
export interface PackedInstall {
  /** A new temporary folder holding everything below (remove it when done). */
  readonly machine: string;
  /** The application folder (`npm init -y`) the tarball was installed into. */
  readonly app: string;
  /** The tarball's file name, as `npm pack` wrote it. */
  readonly tarball: string;
}

/**
 * What a package's quick start does: `npm pack -w <workspace>` (its build must be current), then a
 * new application folder beside it with `npm init -y` and `npm install <tarball> …more` (registry
 * packages, from the npm cache when it has them), with nothing of the repository reachable.
 */
export function installPacked(workspace: string, more: readonly string[] = []): PackedInstall {
  const machine = mkdtempSync(path.join(tmpdir(), 'rc-packed-'));
  const packed = path.join(machine, 'packed');
  mkdirSync(packed);
  run('npm', ['pack', '--silent', '-w', workspace, '--pack-destination', packed], repoRoot);
  const tarball = readdirSync(packed).find((name) => name.endsWith('.tgz')) ?? '';
  const app = path.join(machine, 'my-app');
  mkdirSync(app);
  run('npm', ['init', '-y'], app);
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(packed, tarball), ...more], app);
  return { machine, app, tarball };
}

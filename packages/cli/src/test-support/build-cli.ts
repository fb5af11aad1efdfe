import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Builds the CLI before its tests, so they run the binary as users get it (tsc is incremental: seconds). */
export function setup(): void {
  const root = fileURLToPath(new URL('../../../..', import.meta.url));
  execFileSync('npm', ['run', 'build', '--silent', '-w', '@realtime-config/cli'], { cwd: root, stdio: 'inherit' });
}

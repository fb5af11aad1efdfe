import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Builds the SDK and the CLI on it before the tests, so they run the binary as users get it. */
export function setup(): void {
  const root = fileURLToPath(new URL('../../../..', import.meta.url));
  for (const workspace of ['@realtime-config/client', '@realtime-config/cli']) {
    execFileSync('npm', ['run', 'build', '--silent', '-w', workspace], { cwd: root, stdio: 'inherit' });
  }
}

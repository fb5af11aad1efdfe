import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Builds the CLI (with the SDK compiled in) before the tests, so they run the binary as users get it;
 * the protocol package first, whose build holds the REST types the CLI compiles against.
 */
export function setup(): void {
  const root = fileURLToPath(new URL('../../../..', import.meta.url));
  for (const workspace of ['@realtime-config/protocol', '@realtime-config/cli']) {
    execFileSync('npm', ['run', 'build', '--silent', '-w', workspace], { cwd: root, stdio: 'inherit' });
  }
}

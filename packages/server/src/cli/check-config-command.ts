import { BUILT_IN_ADMIN_PASSWORD } from '../features/auth/index.js';
import type { AppConfig } from '../platform/config/app-config.js';
import { ConfigError } from '../platform/config/load-config.js';
import { EXIT, type CommandIo, type ExitCode } from './command-io.js';
import { describeDatabase } from './describe-database.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * `check-config`: loads the configuration from every source as the server would and prints every
 * problem (each names its key, and the known key it is closest to) on stderr, exit 1; or a short
 * summary, exit 0. Either way it warns of what the sources hold that the server ignores (another
 * tool's section) and of settings to reconsider.
 */
export function checkConfig(load: () => AppConfig, io: CommandIo): ExitCode {
  let config: AppConfig;
  try {
    config = load();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(`The configuration has ${error.issues.length} problem${error.issues.length === 1 ? '' : 's'}:`);
    for (const issue of error.issues) io.err(`  - ${issue}`);
    for (const warning of error.warnings) io.err(`warning: ${warning}`);
    return EXIT.failed;
  }
  const { server, authentication } = config;
  io.out('The configuration is valid.');
  io.out(`  listens on  ${server.tls ? 'https' : 'http'}://${server.host}:${server.port}`);
  io.out(`  database    ${describeDatabase(config)}`);
  io.out(`  sign-in     ${authentication.provider}`);
  io.out(`  environment ${config.environment}`);
  for (const advice of [...config.warnings, ...adviceFor(config)]) io.err(`warning: ${advice}`);
  return EXIT.ok;
}

/** Settings that work but that an operator should know about before going live. */
function adviceFor(config: AppConfig): string[] {
  const advice: string[] = [];
  const { local, provider } = config.authentication;
  if (provider === 'Local' && local.defaultAdminPassword === BUILT_IN_ADMIN_PASSWORD) {
    advice.push(
      `Authentication:Local:DefaultAdminPassword is the built-in "${BUILT_IN_ADMIN_PASSWORD}": until the seeded admin changes it, the API refuses that account everything but signing in and changing the password.`,
    );
  }
  if (!config.grpc.requireAuthentication && !LOOPBACK.has(config.server.host)) {
    advice.push(
      `Grpc:RequireAuthentication is false while Server:Host is ${config.server.host}: anyone who reaches the port can read every value over gRPC.`,
    );
  }
  return advice;
}

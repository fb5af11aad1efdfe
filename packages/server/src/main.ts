import { runCli } from './cli/program.js';

/**
 * The server's entry (`realtime-config-server`, `npm start`): serves, or runs one of its commands
 * (migrate, backup, restore, check-config) and exits with its code.
 */
runCli({ argv: process.argv.slice(2), env: process.env, cwd: process.cwd() }).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`Realtime Config failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);

import { Command, CommanderError } from 'commander';
import { accountCommands } from './commands/account.js';
import { browseCommands } from './commands/browse.js';
import { fileCommands } from './commands/files.js';
import { reviewCommands } from './commands/reviews.js';
import { rolloutCommands } from './commands/rollouts.js';
import { secretCommands } from './commands/secrets.js';
import { targetingCommands } from './commands/targeting.js';
import { tokenCommands } from './commands/tokens.js';
import { validateCommand } from './commands/validate.js';
import { valueCommands } from './commands/values.js';
import { watchCommand } from './commands/watch.js';
import { webhookCommands } from './commands/webhooks.js';
import type { GlobalOptions } from './context.js';
import { CliError, EXIT } from './errors.js';

const EXIT_CODES_HELP = `
Exit codes:
  0  done
  1  the server could not be reached or failed (diff --exit-code: the versions differ; validate: a value
     breaks its schema or a validator refuses)
  2  wrong arguments or options
  3  conflict: something changed since it was read; read again and retry
  4  not found: no such service, version or key
  5  not signed in, sign-in expired, or not allowed
  6  refused input: a value that does not fit its type, an unknown key, a bad file

Environment: REALTIME_CONFIG_URL (server), REALTIME_CONFIG_TOKEN (a personal token rcp_… or a service API key
rck_… instead of login, with every sign-in provider),
REALTIME_CONFIG_PASSWORD (login), REALTIME_CONFIG_API_KEY (watch), REALTIME_CONFIG_HOME (where login is kept).`;

/** The whole command line: every command, `--json` and `--server` on all of them, and the exit codes. */
export function buildProgram(): Command {
  const program = new Command('realtime-config')
    .description(
      'Manage a Realtime Config server from the command line: values, history, restore, files, live changes.',
    )
    .option(
      '--server <url>',
      'the server (default: REALTIME_CONFIG_URL, the one signed in to, or http://localhost:8080)',
    )
    .option('--json', 'machine-readable output on stdout (messages stay on stderr)')
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', EXIT_CODES_HELP)
    .exitOverride();
  const globals = () => program.opts<GlobalOptions>();
  accountCommands(program, globals);
  browseCommands(program, globals);
  valueCommands(program, globals);
  fileCommands(program, globals);
  validateCommand(program, globals);
  watchCommand(program, globals);
  tokenCommands(program, globals);
  reviewCommands(program, globals);
  webhookCommands(program, globals);
  secretCommands(program, globals);
  targetingCommands(program, globals);
  rolloutCommands(program, globals);
  for (const command of program.commands) {
    command.exitOverride();
    command.showHelpAfterError('(add --help for usage)');
  }
  return program;
}

/** Runs the command line and answers its exit code; failures are printed on stderr, never as a stack trace. */
export async function run(argv: readonly string[], stderr = process.stderr): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv as string[]);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end with code 0; any other commander error is a usage error.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof CliError) {
      const fields = Object.entries(error.fieldErrors).map(([field, messages]) => `  ${fieldLine(field, messages)}`);
      stderr.write(`error: ${error.message}\n${fields.length > 0 ? `${fields.join('\n')}\n` : ''}`);
      return error.exitCode;
    }
    stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.failure;
  }
}

/**
 * One field error for people: an item of a batch (`[2].rawValue`) is named by its message already
 * ("Payments:Limits must be a JSON object"), `body` is the file; other fields keep their name.
 */
function fieldLine(field: string, messages: readonly string[]): string {
  const text = messages.join('; ');
  if (/^\[\d+\]/.test(field)) return text;
  return `${field === 'body' ? 'file' : field}: ${text}`;
}

import { Command, CommanderError } from 'commander';
import type { AppConfig } from '../platform/config/app-config.js';
import { separateConfigArguments } from '../platform/config/config-sources.js';
import { ConfigError, loadConfig } from '../platform/config/load-config.js';
import { serverVersion } from '../platform/package-info.js';
import { backup, restore } from './backup-commands.js';
import { checkConfig } from './check-config-command.js';
import { describeError, EXIT, processIo, type CommandIo, type ExitCode } from './command-io.js';
import { migrate } from './migrate-command.js';
import { serve } from './serve-command.js';

export interface CliContext {
  /** The arguments after the script name. */
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly io?: CommandIo;
}

const CONFIGURATION_HELP = `
Configuration (every command reads it the same way; later wins):
  built-in defaults < appsettings.json in the working directory, or the --config FILE
  < appsettings.{APP_ENV}.json beside it < environment variables Section__Key
  < command-line arguments --Section:Key=value (before or after the command)

Exit codes:
  0  done
  1  failed or refused (check-config: the configuration has problems)
  2  wrong arguments, a configuration that cannot be loaded, or a database the command does not apply to`;

/**
 * The server's command line: without a command it serves; `migrate`, `backup`, `restore` and
 * `check-config` do one job and exit. Resolves with the exit code, or undefined while serving.
 */
export async function runCli(context: CliContext): Promise<ExitCode | undefined> {
  const io = context.io ?? processIo;
  const { config: configArgs, rest } = separateConfigArguments(context.argv);
  const load = (): AppConfig => loadConfig({ argv: configArgs, env: context.env, cwd: context.cwd });
  let result: ExitCode | undefined;

  /** Loads the configuration for a command that needs a usable one; invalid → exit 2. */
  const withConfig =
    <A extends unknown[]>(work: (config: AppConfig, ...args: A) => Promise<ExitCode | undefined>) =>
    async (...args: A): Promise<void> => {
      let config: AppConfig;
      try {
        config = load();
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        io.err(error.message);
        result = EXIT.unusable;
        return;
      }
      result = await work(config, ...args);
    };

  const program = new Command('realtime-config-server')
    .description('The Realtime Config server. Without a command it serves; the commands below do one job and exit.')
    .version(serverVersion)
    .option('--config <file>', 'the settings file to read instead of ./appsettings.json')
    .addHelpText('after', CONFIGURATION_HELP)
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({ writeOut: (text) => io.out(text.trimEnd()), writeErr: (text) => io.err(text.trimEnd()) })
    .exitOverride()
    .allowExcessArguments()
    .action(async (_options: unknown, command: Command) => {
      if (command.args.length > 0) {
        io.err(`error: unknown command '${command.args[0]}' (add --help for usage)`);
        result = EXIT.unusable;
        return;
      }
      await withConfig(async (config) => {
        await serve(config);
        return undefined;
      })();
    });

  program
    .command('migrate')
    .description('apply the database migrations of this release, then exit')
    .action(withConfig((config) => migrate(config, io)));
  program
    .command('backup')
    .description('write an online, consistent copy of the embedded database to <file> (also while servers run)')
    .argument('<file>', 'the backup file to write (replaced when it exists)')
    .action(withConfig((config, file: string) => backup(config, file, context.cwd, io)));
  program
    .command('restore')
    .description('put a backup in place as the embedded database; Database:DataDir must be missing or empty')
    .argument('<file>', 'a file written by backup')
    .action(withConfig((config, file: string) => restore(config, file, context.cwd, io)));
  program
    .command('check-config')
    .description('check the configuration from every source and print every problem, each naming its key')
    .action(() => {
      result = checkConfig(load, io);
    });
  for (const command of program.commands) {
    command.exitOverride().showHelpAfterError('(add --help for usage)');
    command.configureOutput(program.configureOutput());
  }

  try {
    await program.parseAsync(rest, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.unusable;
    io.err(`realtime-config-server: ${describeError(error)}`);
    return EXIT.failed;
  }
  return result;
}

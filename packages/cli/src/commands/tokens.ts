import type { Command } from 'commander';
import { contextOf, type GlobalOptions } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { table } from '../output.js';
import { unwrap } from '../rest.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** `--expires`: an ISO 8601 time, or a number of days (`30d`). */
function expiryOf(value: string | undefined): string | null {
  if (value === undefined) return null;
  const days = /^(\d{1,5})d$/.exec(value);
  if (days) return new Date(Date.now() + Number(days[1]) * DAY_MS).toISOString();
  if (Number.isNaN(Date.parse(value))) {
    throw new CliError(
      `--expires takes an ISO 8601 time or a number of days such as 30d (got "${value}").`,
      EXIT.usage,
    );
  }
  return new Date(value).toISOString();
}

/** Personal access tokens: a credential of your own for pipelines, with every sign-in provider. */
export function tokenCommands(program: Command, globals: () => GlobalOptions): void {
  const token = program
    .command('token')
    .description('Personal access tokens (rcp_…): act as you in pipelines, on REST and gRPC')
    .addHelpText(
      'after',
      '\nExamples:\n  realtime-config token create deploy-pipeline --expires 30d\n' +
        '  REALTIME_CONFIG_TOKEN=rcp_… realtime-config get payments 1.0.0 Payments:TimeoutSeconds',
    );

  token
    .command('create <name>')
    .description('Make a token; it is printed once: store it now')
    .option('--expires <when>', "an ISO 8601 time or a number of days (30d); default and most: the server's limit")
    .action(async (name: string, options: { expires?: string }) => {
      const ctx = contextOf(globals());
      const created = await unwrap(
        ctx.api.POST('/api/auth/tokens', { body: { name, expiresAt: expiryOf(options.expires) } }),
      );
      ctx.out.result(created, () => created.token);
      ctx.out.note(
        `Token "${created.name}" expires ${created.expiresAt}. It is shown only now: store it in your secret store.`,
      );
    });

  token
    .command('list')
    .description('Your tokens (never the tokens themselves)')
    .action(async () => {
      const ctx = contextOf(globals());
      const tokens = await unwrap(ctx.api.GET('/api/auth/tokens'));
      ctx.out.result(tokens, () =>
        tokens.length === 0
          ? 'No tokens.'
          : table(
              ['ID', 'NAME', 'PREFIX', 'EXPIRES', 'LAST USED', 'REVOKED'],
              tokens.map((t) => [t.id, t.name, t.prefix, t.expiresAt, t.lastUsedAt ?? '–', t.revokedAt ?? '–']),
            ),
      );
    });

  token
    .command('revoke <id>')
    .description('Revoke one of your tokens: calls with it, open streams included, are refused from now on')
    .action(async (id: string) => {
      const ctx = contextOf(globals());
      await unwrap(ctx.api.DELETE('/api/auth/tokens/{tokenId}', { params: { path: { tokenId: id } } }));
      ctx.out.result({ revoked: id }, () => `Revoked ${id}.`);
    });
}

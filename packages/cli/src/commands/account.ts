import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { contextOf, normalizeServer, DEFAULT_SERVER, type GlobalOptions } from '../context.js';
import { deleteLogin, loadLogin, saveLogin } from '../credentials.js';
import { CliError, EXIT } from '../errors.js';
import { createOutput } from '../output.js';
import { createRestApi, problemOf, unwrap, type RestApi } from '../rest.js';
import { policyWords } from '../vocabulary.js';

/** What a person may do, in the console's words ("may: Administer, Change values"); --json keeps the names. */
function permissionsText(policies: readonly string[]): string {
  return policies.length === 0 ? 'no permissions' : `may: ${policies.map((p) => policyWords(p).name).join(', ')}`;
}

/** All of standard input, without its trailing newline. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Asks on the terminal without echoing what is typed. */
function promptHidden(question: string): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    const writeOriginal = (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput;
    (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s: string) => {
      if (s.startsWith(question)) writeOriginal.call(rl, s);
    };
    rl.question(question, (answer) => {
      rl.close();
      process.stderr.write('\n');
      resolve(answer);
    });
  });
}

async function passwordOf(options: { passwordStdin?: boolean }): Promise<string> {
  if (options.passwordStdin) return readStdin();
  if (process.env.REALTIME_CONFIG_PASSWORD) return process.env.REALTIME_CONFIG_PASSWORD;
  if (!process.stdin.isTTY) {
    throw new CliError('No password: use --password-stdin or REALTIME_CONFIG_PASSWORD.', EXIT.usage);
  }
  return promptHidden('Password: ');
}

async function signInLocal(server: string, user: string, password: string): Promise<string> {
  const { error, response } = await createRestApi(server, undefined).POST('/auth/login', {
    body: { username: user, password },
  });
  if (!response.ok) {
    const exit = response.status === 429 ? EXIT.failure : EXIT.denied;
    throw new CliError(problemOf(error).detail ?? `Sign-in failed (${response.status}).`, exit);
  }
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('rc_session='));
  if (!cookie) throw new CliError('The server answered the sign-in without a session.', EXIT.failure);
  return cookie.split(';', 1)[0] as string;
}

/** The service an API key belongs to: the only one its search finds. */
async function keyServiceOf(api: RestApi): Promise<{ id: string; name: string }> {
  const page = await unwrap(api.POST('/api/services/search', { body: {} }));
  const service = page.entities[0];
  if (!service) throw new CliError('The API key finds no service.', EXIT.denied);
  return { id: service.id, name: service.name };
}

export function accountCommands(program: Command, globals: () => GlobalOptions): void {
  program
    .command('login')
    .description('Sign in and remember it (file readable only by you, in your config directory)')
    .option('-u, --user <name>', 'Local provider: the username (the password is asked, or read from stdin)')
    .option('--password-stdin', 'read the password from standard input')
    .option(
      '--token-stdin',
      'read a personal access token (rcp_…), a service API key (rck_…) or a Jwt from standard input instead of signing in',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  realtime-config login --server https://config.example.com --user admin\n' +
        '  echo "$TOKEN" | realtime-config login --token-stdin\n\n' +
        'Pipelines may skip login: REALTIME_CONFIG_URL and REALTIME_CONFIG_TOKEN are read by every command.',
    )
    .action(async (options: { user?: string; passwordStdin?: boolean; tokenStdin?: boolean }) => {
      const g = globals();
      const out = createOutput(g.json === true);
      const server = normalizeServer(
        g.server ?? process.env.REALTIME_CONFIG_URL ?? loadLogin()?.server ?? DEFAULT_SERVER,
      );
      if (options.tokenStdin === (options.user !== undefined)) {
        throw new CliError('Give either --user (Local sign-in) or --token-stdin.', EXIT.usage);
      }
      const credential = options.tokenStdin
        ? { token: await readStdin() }
        : { cookie: await signInLocal(server, options.user as string, await passwordOf(options)) };
      if ('token' in credential && !credential.token) throw new CliError('No token on standard input.', EXIT.usage);
      const api = createRestApi(server, credential);
      if ('token' in credential && credential.token?.startsWith('rck_')) {
        // An API key is no person: it is checked on the one service it belongs to.
        const service = await keyServiceOf(api);
        const file = saveLogin({ server, ...credential, user: `API key of ${service.name}` });
        out.result(
          { server, apiKeyOf: service, credentialsFile: file },
          () => `Using an API key of service ${service.name} (${service.id}) on ${server}.\nSaved in ${file}.`,
        );
        return;
      }
      const me = await unwrap(api.GET('/auth/me'));
      const file = saveLogin({ server, ...credential, user: me.id });
      out.result({ server, user: me.id, provider: me.provider, policies: me.policies, credentialsFile: file }, () =>
        [
          `Signed in to ${server} as ${me.id} (${me.provider}; ${permissionsText(me.policies)}).`,
          `Saved in ${file}.`,
          ...(me.passwordChangeRequired
            ? [
                'This account still has its default password: the server refuses it everything else until it is changed (in the web console, or PUT /api/users/me/password).',
              ]
            : []),
        ].join('\n'),
      );
    });

  program
    .command('logout')
    .description('Sign out on the server and forget the stored sign-in')
    .action(async () => {
      const ctx = contextOf(globals());
      if (ctx.credential && 'cookie' in ctx.credential) await ctx.api.POST('/auth/logout').catch(() => undefined);
      const removed = deleteLogin();
      ctx.out.result({ signedOut: removed }, () => (removed ? 'Signed out.' : 'Was not signed in.'));
    });

  program
    .command('whoami')
    .description('Who the stored sign-in (or REALTIME_CONFIG_TOKEN) is, and what it may do')
    .action(async () => {
      const ctx = contextOf(globals());
      if (ctx.credential && 'token' in ctx.credential && ctx.credential.token.startsWith('rck_')) {
        const service = await keyServiceOf(ctx.api);
        ctx.out.result(
          { apiKeyOf: service },
          () => `An API key of service ${service.name} (${service.id}) on ${ctx.server}`,
        );
        return;
      }
      const me = await unwrap(ctx.api.GET('/auth/me'));
      ctx.out.result(me, () => `${me.id} on ${ctx.server} (${me.provider}); ${permissionsText(me.policies)}`);
    });
}

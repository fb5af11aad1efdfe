import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

/** What `login` keeps: the server and one credential (never printed). */
export interface StoredLogin {
  readonly server: string;
  /** The session cookie of a Local sign-in (`rc_session=…`). */
  readonly cookie?: string;
  /** A Jwt-provider token or an API key, sent as `authorization: Bearer`. */
  readonly token?: string;
  readonly user?: string;
}

/** `$REALTIME_CONFIG_HOME`, else `$XDG_CONFIG_HOME/realtime-config`, else `~/.config/realtime-config`. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.REALTIME_CONFIG_HOME) return env.REALTIME_CONFIG_HOME;
  const base = env.XDG_CONFIG_HOME || path.join(homedir(), '.config');
  return path.join(base, 'realtime-config');
}

export function credentialsFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configDir(env), 'credentials.json');
}

export function loadLogin(env: NodeJS.ProcessEnv = process.env): StoredLogin | undefined {
  let text: string;
  try {
    text = readFileSync(credentialsFile(env), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const stored = JSON.parse(text) as StoredLogin;
    return typeof stored.server === 'string' ? stored : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes the login readable by its owner only: the file 0600, replaced atomically, also when it
 * existed. The folders `login` creates on the way are 0700 whatever the umask; a folder that already
 * exists keeps its mode (it may be a shared one, such as `$XDG_CONFIG_HOME`'s).
 */
export function saveLogin(login: StoredLogin, env: NodeJS.ProcessEnv = process.env): string {
  const dir = path.resolve(configDir(env));
  const created = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (created !== undefined) {
    // From the folder up to the first one mkdir created: mkdir's mode is filtered by the umask.
    const first = path.resolve(created);
    for (let folder = dir; ; folder = path.dirname(folder)) {
      chmodSync(folder, 0o700);
      if (folder === first || folder === path.dirname(folder)) break;
    }
  }
  const file = credentialsFile(env);
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  // Written aside with its final mode, then renamed over the old one: never readable by others, never half written.
  try {
    writeFileSync(temp, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(temp, 0o600);
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  return file;
}

export function deleteLogin(env: NodeJS.ProcessEnv = process.env): boolean {
  const file = credentialsFile(env);
  try {
    rmSync(file);
    return true;
  } catch {
    return false;
  }
}

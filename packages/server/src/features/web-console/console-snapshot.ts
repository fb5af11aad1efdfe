import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const PREFIX = 'realtime-config-console-';
/** A build being written while the server starts: how long to wait for it to be complete. */
const COMPLETE_ATTEMPTS = 40;
const COMPLETE_WAIT_MS = 250;

export interface ConsoleSnapshot {
  /** A private copy of the build, served until the server stops. */
  readonly dir: string;
  /** Files that the copied index.html names but the copy lacks (empty when the build is whole). */
  readonly missing: readonly string[];
  remove(): void;
}

/**
 * Copies the built console to a private folder and serves that copy, so the server keeps serving
 * one build for its whole life: a rebuild (`npm run build`, which deletes the hashed files the old
 * index.html names) or an upgrade of the installed package never leaves open or new browsers with
 * an index.html whose scripts are gone. Returns null when there is no build.
 */
export async function snapshotConsole(source: string): Promise<ConsoleSnapshot | null> {
  removeAbandonedSnapshots();
  for (let attempt = 1; ; attempt++) {
    if (!existsSync(path.join(source, 'index.html'))) return null;
    const dir = mkdtempSync(path.join(tmpdir(), `${PREFIX}${process.pid}-`));
    const remove = (): void => rmSync(dir, { recursive: true, force: true });
    try {
      cpSync(source, dir, { recursive: true });
    } catch {
      // A file vanished mid-copy: a rebuild is under way.
      remove();
      if (attempt >= COMPLETE_ATTEMPTS) return null;
      await sleep(COMPLETE_WAIT_MS);
      continue;
    }
    const missing = missingAssets(dir);
    if (missing.length === 0 || attempt >= COMPLETE_ATTEMPTS) return { dir, missing, remove };
    remove();
    await sleep(COMPLETE_WAIT_MS);
  }
}

/** The files under /assets that index.html loads but the folder does not have. */
function missingAssets(dir: string): string[] {
  const html = readFileSync(path.join(dir, 'index.html'), 'utf8');
  const named = [...html.matchAll(/(?:src|href)="\/(assets\/[^"?#]+)"/g)].map((match) => match[1] ?? '');
  return named.filter((file) => !existsSync(path.join(dir, file)));
}

/** Snapshots of server processes that ended without removing theirs (killed). */
function removeAbandonedSnapshots(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^realtime-config-console-(\d+)-/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && !isRunning(pid)) {
      rmSync(path.join(tmpdir(), name), { recursive: true, force: true });
    }
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

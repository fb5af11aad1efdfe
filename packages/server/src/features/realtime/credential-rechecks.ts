import { AppError } from '../../platform/errors.js';

/** Why a stream whose credentials no longer stand is ended. */
export type RevokedCode = 'UNAUTHENTICATED' | 'PERMISSION_DENIED';

interface Group {
  readonly recheck: () => Promise<void>;
  readonly members: Set<(code: RevokedCode, message: string) => void>;
}

/**
 * Open streams keep checking that their credentials still stand: an API key deleted, a token
 * revoked or expired, a session signed out or a membership removed ends them (on every instance
 * sharing the database, since each checks the stored state itself). Streams with the same
 * credentials for the same service share one check per interval, so a fleet on one key costs one
 * lookup, not one per stream.
 */
export class CredentialRechecks {
  private readonly groups = new Map<string, Group>();
  private readonly timer: NodeJS.Timeout;
  private running = false;

  constructor(
    intervalMs: number,
    private readonly logger: { warn(obj: object, msg: string): void },
  ) {
    this.timer = setInterval(() => void this.runOnce(), intervalMs);
    this.timer.unref();
  }

  /** Watches one stream; `onRevoked` ends it. Returns the function that stops watching it. */
  watch(
    key: string,
    recheck: () => Promise<void>,
    onRevoked: (code: RevokedCode, message: string) => void,
  ): () => void {
    let group = this.groups.get(key);
    if (!group) {
      group = { recheck, members: new Set() };
      this.groups.set(key, group);
    }
    const members = group.members;
    members.add(onRevoked);
    return () => {
      members.delete(onRevoked);
      if (members.size === 0 && this.groups.get(key)?.members === members) this.groups.delete(key);
    };
  }

  /** One pass over every group (the timer's job; tests may call it). */
  async runOnce(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (const [key, group] of [...this.groups]) {
        try {
          await group.recheck();
        } catch (error) {
          if (error instanceof AppError && (error.code === 'UNAUTHENTICATED' || error.code === 'PERMISSION_DENIED')) {
            this.groups.delete(key);
            for (const end of group.members) end(error.code, error.message);
          } else {
            // The database may be away for a moment: the streams stay; the next pass checks again.
            this.logger.warn({ err: error }, 'checking the credentials of open streams failed; checking again later');
          }
        }
      }
    } finally {
      this.running = false;
    }
  }

  close(): void {
    clearInterval(this.timer);
    this.groups.clear();
  }
}

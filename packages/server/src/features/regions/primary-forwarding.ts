import { followerWriteRefused, type InstanceRole, type WalPositions } from '../../core/index.js';
import { AppError } from '../../platform/errors.js';

/**
 * Marks a request a follower forwards to the primary (its value: the follower's instance name). A
 * follower never forwards such a request again (Server:PrimaryUrl naming a follower would loop); a
 * primary answers it with its WAL position.
 */
export const FORWARDED_BY_HEADER = 'x-rc-forwarded-by';
/** The primary's WAL position after it answered a forwarded request. */
export const WAL_POSITION_HEADER = 'x-rc-wal-position';
/**
 * How long a follower waits for its standby to replay a forwarded write before answering: then the
 * caller's next read at the follower sees its own write. Past it the answer goes anyway.
 */
export const REPLAY_WAIT_MS = 5000;
/** How long the primary may take to answer a forwarded request. */
export const FORWARD_TIMEOUT_MS = 30_000;

export interface ForwardingOptions {
  readonly role: InstanceRole;
  /** Null with SQLite, which has no followers. */
  readonly positions: WalPositions | null;
  /** This instance's name, sent in the forwarded-by header. */
  readonly serverInstance: string;
  readonly logger: { warn(obj: object, msg: string): void };
}

/** Why a follower without Server:PrimaryUrl refuses a write. */
export const NO_PRIMARY_URL =
  'This instance is a read-only follower (its database is a PostgreSQL standby) and has no Server:PrimaryUrl to forward writes to: send changes, sign-ins and registrations to an instance of the primary region.';

/** What a follower answers a forwarded request that it would forward again. */
export const FORWARDING_LOOP =
  'This request was forwarded by a follower whose Server:PrimaryUrl names another follower, not the primary: fix Server:PrimaryUrl of that instance.';

/** The follower's reason to refuse a write it cannot forward, before anything runs. */
export function refusal(role: InstanceRole, forwardedBy: string | undefined): AppError | null {
  if (forwardedBy !== undefined) return followerWriteRefused(FORWARDING_LOOP);
  if (role.primaryUrl === null) return followerWriteRefused(NO_PRIMARY_URL);
  return null;
}

/** The primary could not be reached or did not answer in time: 503, saying which and why. */
export function primaryUnreachable(primaryUrl: string, error: unknown): AppError {
  const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const reason = err.cause?.code ?? err.code ?? err.cause?.message ?? err.message ?? String(error);
  return new AppError(
    'UNAVAILABLE',
    `This instance is a read-only follower and the primary (${primaryUrl}) did not answer the forwarded write (${reason}). Retry later.`,
    undefined,
    { cause: error },
  );
}

/**
 * After a forwarded write: waits until this follower's standby has replayed the primary's position,
 * so that the caller reads its own write here. A standby that does not get there in time is only
 * logged: the answer is the primary's either way.
 */
export async function awaitReplay(options: ForwardingOptions, position: string | null | undefined): Promise<void> {
  if (!position || !options.positions) return;
  try {
    if (!(await options.positions.waitForReplay(position, REPLAY_WAIT_MS))) {
      options.logger.warn(
        { position, waitedMs: REPLAY_WAIT_MS },
        'a forwarded write was not replayed by the standby in time; answering anyway',
      );
    }
  } catch (err) {
    options.logger.warn({ err, position }, 'could not wait for the standby to replay a forwarded write');
  }
}

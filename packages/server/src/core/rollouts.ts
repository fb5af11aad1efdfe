import { AppError } from '../platform/errors.js';
import type { EntryRecord } from './entries.js';
import type { EntryRollout } from './targeting.js';

/**
 * Rollouts (docs/rollouts.md): new values of some entries of a version, given to a growing share of
 * its instances in steps, then baked, then made the entries' values, or rolled back. Progress lives
 * in the database (RolloutStore), so any server instance continues it; exactly one advances it.
 */

/**
 * `scheduled` (waits for startAt) → `running` (step by step) → `baking` (the 100 % step, for
 * bakeSeconds) → `completed`; `paused` from any of the first three; `rolled_back` from any of them.
 */
export type RolloutStatus = 'scheduled' | 'running' | 'paused' | 'baking' | 'completed' | 'rolled_back';

export const ROLLOUT_STATUSES: readonly RolloutStatus[] = [
  'scheduled',
  'running',
  'paused',
  'baking',
  'completed',
  'rolled_back',
];

/** A rollout still holds its entries (any other change of them answers 409). */
export const isActive = (status: RolloutStatus): boolean =>
  status === 'scheduled' || status === 'running' || status === 'paused' || status === 'baking';

/** One entry a rollout changes: its new value and the generation it was based on. */
export interface RolloutChange {
  readonly id: string;
  readonly key: string;
  readonly rawValue: string | null;
  readonly generation: number;
  /** A secret: the value is sealed at rest and redacted in answers. */
  readonly isSecret?: boolean;
  readonly unreadable?: boolean;
}

/** Who received the new values (instance ids), and since when (µs) those of them are gone. */
export interface RolloutReceivers {
  readonly in: readonly string[];
  readonly gone: Readonly<Record<string, number>>;
}

export interface RolloutRecord {
  readonly id: string;
  readonly serviceId: string;
  readonly versionId: string;
  readonly status: RolloutStatus;
  readonly changes: readonly RolloutChange[];
  /** Strictly increasing percentages ending at 100. */
  readonly steps: readonly number[];
  /** The 0-based index of the current step in `steps` (0 before the start). */
  readonly step: number;
  readonly stepSeconds: number;
  readonly bakeSeconds: number;
  /** µs. */
  readonly startAt: number;
  /** When the current step started (µs); null before the first. */
  readonly stepStartedAt: number | null;
  /** When the scheduler acts next (µs); null while paused or once ended. */
  readonly nextAt: number | null;
  readonly match: Readonly<Record<string, string>>;
  readonly rollback: { readonly disconnectedShare: number };
  readonly received: RolloutReceivers;
  /** The user id (or `apikey:<id>`) who created it. */
  readonly createdBy: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Why it was rolled back (or promoted, paused): null until then. */
  readonly reason: string | null;
}

export interface RolloutStore {
  insert(rollout: RolloutRecord): Promise<void>;
  get(versionId: string, id: string): Promise<RolloutRecord | undefined>;
  /** The same, locked until the transaction ends (PostgreSQL: a row lock; SQLite has one writer). */
  getForUpdate(versionId: string, id: string): Promise<RolloutRecord | undefined>;
  /** Newest first. */
  list(versionId: string, status: RolloutStatus | null): Promise<RolloutRecord[]>;
  /** The active rollouts (isActive) of a version. */
  active(versionId: string): Promise<RolloutRecord[]>;
  /** Every running or baking rollout, oldest first (their receivers are watched). */
  watched(limit: number): Promise<RolloutRecord[]>;
  /**
   * Active rollouts whose nextAt has come, oldest due first. Read without a lock: each move locks
   * its rollout and checks it is still due (RolloutCommands.advance), so two server instances never
   * take one step together.
   */
  due(nowMicros: number, limit: number): Promise<RolloutRecord[]>;
  update(rollout: RolloutRecord): Promise<void>;
  /** Sets who received the new values, only while the rollout is active (the receivers' watch). */
  setReceived(id: string, received: RolloutReceivers): Promise<void>;
}

/** The percentage of the current step, 0 while scheduled. */
export function currentPercent(rollout: Pick<RolloutRecord, 'steps' | 'step' | 'stepStartedAt'>): number {
  return rollout.stepStartedAt === null ? 0 : (rollout.steps[rollout.step] ?? 0);
}

/** The slot an entry carries while a rollout runs on it: what each instance resolves from. */
export function slotOf(rollout: RolloutRecord, change: RolloutChange): EntryRollout {
  return {
    id: rollout.id,
    rawValue: change.rawValue,
    percent: currentPercent(rollout),
    match: rollout.match,
    ...(change.unreadable ? { unreadable: true as const } : {}),
  };
}

/** The refusal of a change of entries a rollout holds; it names the rollout. */
export function lockedByRollout(entry: Pick<EntryRecord, 'key'>, rolloutId: string): AppError {
  return new AppError(
    'CONFLICT',
    `${entry.key} is part of rollout ${rolloutId}, which is still running: promote it, roll it back or wait for it to complete before changing the entry.`,
    undefined,
    { metadata: { rolloutId } },
  );
}

/** The refusal of an action the rollout's status does not allow. */
export function notAllowed(rollout: RolloutRecord, action: string): AppError {
  return AppError.conflict(`Rollout ${rollout.id} is ${rollout.status}: it cannot be ${action}.`);
}

/** The reason of an automatic rollback. */
export const DISCONNECTED_REASON = 'instances disconnected after receiving the new values';

/** The reason of an automatic rollback whose new values the server can no longer decrypt. */
export const unreadableReason = (keys: readonly string[]): string =>
  `the new value of ${keys.join(', ')} cannot be decrypted with the current master key (Secrets:MasterKeyFile, Secrets:PreviousKeyFiles)`;

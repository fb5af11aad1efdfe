import { DISCONNECTED_REASON, type RolloutRecord, type UnitOfWork } from '../../core/index.js';
import type { Clock } from '../../platform/clock.js';
import type { RolloutCommands } from './rollout-commands.js';
import {
  disconnectedEnough,
  OutJudged,
  watchedReceivers,
  type ClosedInstance,
  type ConnectedInstance,
} from './rollout-receivers.js';

export interface RolloutSchedulerOptions {
  /** Rollouts:TickMilliseconds: how often due rollouts are looked for. */
  readonly tickMilliseconds: number;
  /** Rollouts:DisconnectGraceSeconds: how long a receiver may be away before it counts as gone. */
  readonly disconnectGraceSeconds: number;
  /** The open streams of a version, on every server instance (the presence table with PostgreSQL). */
  readonly connected: (versionId: string) => Promise<readonly ConnectedInstance[]>;
  /** Streams of a version on this server instance that closed at or after a time (µs). */
  readonly closedSince: (versionId: string, since: number) => readonly ClosedInstance[];
  /** True while this instance may not write (a follower): it moves nothing. */
  readonly readOnly: () => boolean;
  readonly logger: { warn(obj: object, msg: string): void };
}

/** Rollouts moved per tick, at most; the rest wait for the next. */
const BATCH = 50;
/**
 * The receivers are watched at most this often: listing a fleet's streams is not free, and other
 * server instances' streams reach the presence table every 2 s anyway.
 */
const WATCH_EVERY_MS = 2000;

/**
 * Moves rollouts on their schedule (docs/rollouts.md). Every server instance runs one; each move
 * locks its rollout and checks it is still due (RolloutCommands.advance), so exactly one instance
 * takes each step, and after a restart the schedule in the database simply continues. It also
 * watches who received the new values and rolls back when enough of them went away.
 */
export class RolloutScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private lastWatch = 0;
  /** Instances judged out of each watched rollout at its step: hashed once, not at every look. */
  private readonly judged = new OutJudged();
  /** Rollouts whose last move failed, with the message logged for it: logged again only when it changes. */
  private readonly failing = new Map<string, string>();

  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: RolloutCommands,
    private readonly clock: Clock,
    private readonly options: RolloutSchedulerOptions,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.running ??= this.tick().finally(() => (this.running = undefined));
    }, this.options.tickMilliseconds);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One round: every due rollout moved, and (at most once a second) the receivers watched. */
  async tick(): Promise<void> {
    if (this.options.readOnly()) return;
    try {
      for (const rollout of await this.uow.read.rollouts.due(this.clock.nowMicros(), BATCH)) {
        // One rollout that cannot move does not keep the others from moving.
        await this.commands.advance(rollout, this.options.disconnectGraceSeconds * 1_000_000).then(
          () => this.failing.delete(rollout.id),
          (error: unknown) => this.failed(rollout.id, error),
        );
      }
      const nowMs = this.clock.nowMicros() / 1000;
      if (nowMs - this.lastWatch >= WATCH_EVERY_MS) {
        this.lastWatch = nowMs;
        const watched = await this.uow.read.rollouts.watched(BATCH);
        this.judged.keep(new Set(watched.map((r) => r.id)));
        for (const rollout of watched) await this.watch(rollout);
      }
    } catch (error) {
      this.options.logger.warn({ err: error }, 'moving rollouts failed; the next tick tries again');
    }
  }

  private failed(id: string, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    if (this.failing.get(id) === message) return;
    if (this.failing.size >= 1000) this.failing.clear(); // bounded: at worst, messages are logged again
    this.failing.set(id, message);
    this.options.logger.warn({ err: error, rolloutId: id }, 'moving a rollout failed; the next tick tries again');
  }

  /**
   * Every server instance watches with what it sees: all open streams (the presence table) and the
   * streams that closed on it. Each merges its look into the stored receivers under the rollout's
   * row lock, so two instances never undo each other's.
   */
  private async watch(rollout: RolloutRecord): Promise<void> {
    const connected = await this.options.connected(rollout.versionId);
    const closed = this.options.closedSince(rollout.versionId, rollout.startAt);
    const current = await this.uow.write(async (ctx) => {
      const now = this.clock.nowMicros();
      const locked = await ctx.rollouts.getForUpdate(rollout.versionId, rollout.id);
      if (!locked || (locked.status !== 'running' && locked.status !== 'baking')) return null;
      const received = watchedReceivers(locked, connected, closed, now, this.judged);
      if (received) await ctx.rollouts.setReceived(locked.id, received);
      return received ? { ...locked, received } : locked;
    });
    if (
      current &&
      disconnectedEnough(current, this.clock.nowMicros(), this.options.disconnectGraceSeconds * 1_000_000)
    ) {
      await this.commands.rollBackFor(rollout, DISCONNECTED_REASON);
    }
  }
}

export interface WarnLogger {
  warn(obj: object, msg: string): void;
}

/**
 * A warning that is logged at once, then at most once per interval while it keeps happening, each
 * line saying how often it happened since the previous one: a flood of connections must not become a
 * flood of log lines.
 */
export class RateLimitedWarning {
  private lastAt = -Infinity;
  private count = 0;

  constructor(
    private readonly logger: WarnLogger | undefined,
    private readonly message: string,
    private readonly intervalMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  note(fields: object = {}): void {
    this.count++;
    const now = this.now();
    if (now - this.lastAt < this.intervalMs) return;
    this.logger?.warn({ ...fields, occurrences: this.count }, this.message);
    this.lastAt = now;
    this.count = 0;
  }
}

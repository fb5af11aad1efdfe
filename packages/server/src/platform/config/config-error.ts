/**
 * Thrown by `loadConfig` when the configuration cannot be used. The server must not start
 * half-configured, so every problem found is listed in the one message, each naming its key.
 */
export class ConfigError extends Error {
  readonly issues: readonly string[];

  constructor(
    issues: string | readonly string[],
    /** What was ignored besides (as `AppConfig.warnings`), for `check-config` to show too. */
    readonly warnings: readonly string[] = [],
  ) {
    const list = typeof issues === 'string' ? [issues] : [...issues];
    super(`Invalid configuration: ${list.join('; ')}`);
    this.name = 'ConfigError';
    this.issues = Object.freeze(list);
  }
}

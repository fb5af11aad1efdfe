import { ConfigError } from '../errors.js';

/**
 * A set of listeners called in the order they were added. A listener that throws, or returns a
 * promise that rejects, is reported to `onFailure` and never disturbs the others or the caller.
 */
export class Listeners<A extends unknown[]> {
  private readonly listeners = new Set<(...args: A) => unknown>();

  constructor(private readonly onFailure: (error: unknown) => void) {}

  /** Adds a listener; returns the function that removes it. */
  add(listener: (...args: A) => unknown): () => void {
    if (typeof listener !== 'function') throw new ConfigError('INVALID_ARGUMENT', 'a listener must be a function');
    // Each call adds a listener of its own, even the same function twice.
    const own = (...args: A): unknown => listener(...args);
    this.listeners.add(own);
    return () => {
      this.listeners.delete(own);
    };
  }

  emit(...args: A): void {
    for (const listener of [...this.listeners]) {
      try {
        const result = listener(...args);
        if (result instanceof Promise) result.catch(this.onFailure);
      } catch (error) {
        this.onFailure(error);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}

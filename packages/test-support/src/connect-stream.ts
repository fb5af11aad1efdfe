import { ConnectError } from '@connectrpc/connect';

/**
 * Reads a Connect-ES server stream (`for await`) in the background, collecting its messages and
 * how it ended, so a test can open a stream, change something, and wait for what arrives.
 */
export class ConnectStream<T> {
  readonly messages: T[] = [];
  /** The error the stream ended with, as a ConnectError (Connect-ES clients always throw those). */
  error: ConnectError | undefined;
  /** True once the stream ended: completed, failed, stopped by `stopWhen` or cancelled. */
  ended = false;
  /** Resolves when the stream has ended, however it ended. */
  readonly done: Promise<void>;
  private readonly abort = new AbortController();
  private waiters: Array<() => void> = [];

  /**
   * @param open starts the call with the given signal, e.g. `(signal) => client.startSubscribe(req, { signal })`.
   * @param stopWhen checked after every message; when it holds, the call is cancelled and the loop breaks.
   */
  constructor(open: (signal: AbortSignal) => AsyncIterable<T>, stopWhen?: (messages: readonly T[]) => boolean) {
    this.done = (async () => {
      try {
        for await (const message of open(this.abort.signal)) {
          this.messages.push(message);
          this.notify();
          if (stopWhen?.(this.messages)) {
            // Connect-ES 2 does not cancel the call when a `for await` loop breaks (the request
            // stays open and the server keeps the subscription); the signal does.
            this.abort.abort();
            break;
          }
        }
      } catch (error) {
        if (!this.abort.signal.aborted) this.error = ConnectError.from(error);
      } finally {
        this.ended = true;
        this.notify();
      }
    })();
  }

  private notify(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves when the predicate holds (checked after every message and at the end), or rejects after the timeout. */
  async until(predicate: (s: this) => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      if (Date.now() > deadline) {
        throw new Error(
          `condition not met in ${timeoutMs} ms; messages: ${this.messages.length}, ended: ${this.ended}, error: ${this.error?.message}`,
        );
      }
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /** Cancels the call (the client goes away) and waits for the loop to finish. */
  async cancel(): Promise<void> {
    this.abort.abort();
    await this.done;
  }
}

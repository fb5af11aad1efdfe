import { RateLimiterMemory } from 'rate-limiter-flexible';

import type { LocalAuthConfig } from '../../../platform/config/app-config.js';

/**
 * Failed password checks, counted three ways. A check is refused, without looking at the password,
 * while the count of its username and address or of its address is exhausted, or while the count of
 * its username across addresses is exhausted *and* its address has failed before in the window.
 * The last condition keeps anyone from locking a user (the admin) out by failing from elsewhere:
 * an address with no failure still gets its attempt, and a wrong one makes it a failed address.
 * Refused attempts add nothing, so one address adds at most `perAddress` keys per window.
 */
export class SignInThrottle {
  private readonly limiters: ReadonlyArray<{
    limiter: RateLimiterMemory;
    key: (u: string, a: string) => string;
    /** Applies only to addresses that failed before (the per-username count). */
    onlyFailedAddresses?: boolean;
  }>;

  /**
   * Per username and address (a guessed password), per address across usernames (password
   * spraying), per username across addresses (distributed guessing).
   */
  constructor(limits: LocalAuthConfig['signInLimits']) {
    const make = (points: number) => new RateLimiterMemory({ points, duration: limits.windowMinutes * 60 });
    this.limiters = [
      { limiter: make(limits.perUserAndAddress), key: (u, a) => `${u.toLowerCase()}\u0000${a}` },
      { limiter: make(limits.perAddress), key: (_u, a) => a },
      { limiter: make(limits.perUser), key: (u) => u.toLowerCase(), onlyFailedAddresses: true },
    ];
  }

  /** Seconds until another attempt is allowed, or 0 when it is allowed now. */
  async retryAfterSeconds(username: string, address: string): Promise<number> {
    const perAddress = this.limiters[1];
    const addressFailed = ((await perAddress?.limiter.get(perAddress.key(username, address)))?.consumedPoints ?? 0) > 0;
    let wait = 0;
    for (const { limiter, key, onlyFailedAddresses } of this.limiters) {
      if (onlyFailedAddresses && !addressFailed) continue;
      const state = await limiter.get(key(username, address));
      if (state && state.consumedPoints >= limiter.points) wait = Math.max(wait, Math.ceil(state.msBeforeNext / 1000));
    }
    return wait;
  }

  async failed(username: string, address: string): Promise<void> {
    for (const { limiter, key } of this.limiters) await limiter.penalty(key(username, address), 1);
  }

  /** A success forgives this username's failures from this address only: sprays and guesses stay counted. */
  async succeeded(username: string, address: string): Promise<void> {
    const first = this.limiters[0];
    if (first) await first.limiter.delete(first.key(username, address));
  }
}

import { ErrorCode, type EvaluationContext } from '@openfeature/server-sdk';

/** One flag of an OFREP bulk answer: a value (absent for DEFAULT) with its reason, or an error. */
export interface OfrepFlag {
  readonly key: string;
  readonly value?: unknown;
  readonly reason?: string;
  readonly variant?: string;
  readonly metadata?: Record<string, string | number | boolean>;
  readonly errorCode?: string;
  readonly errorDetails?: string;
}

/** An OFREP call that failed as a whole, with the OpenFeature error code to answer. */
export class OfrepFailure extends Error {
  constructor(
    readonly errorCode: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

interface CachedContext {
  readonly body: string;
  etag: string | null;
  flags: ReadonlyMap<string, OfrepFlag>;
  /** A stream event arrived since the answer: ask again (with If-None-Match) before using it. */
  stale: boolean;
  pending: Promise<ReadonlyMap<string, OfrepFlag>> | null;
}

export interface ContextFlagsOptions {
  readonly url: string;
  readonly version: string;
  readonly apiKey: string | undefined;
  /** Contexts whose answers are kept; the least recently used are dropped beyond it. */
  readonly maxContexts?: number;
}

const DEFAULT_MAX_CONTEXTS = 1000;
const KNOWN_ERRORS = new Set<string>(Object.values(ErrorCode));

/** The part of a context the server evaluates: targetingKey and the string attributes, in key order. */
function bodyOf(context: EvaluationContext): string {
  const attributes = Object.entries(context)
    .filter(([, value]) => typeof value === 'string')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify({ context: Object.fromEntries(attributes) });
}

/**
 * Per-context evaluation through the server's OFREP bulk endpoint: one round trip per new context,
 * none per flag. Each context's answer is kept with its ETag; a stream event marks every answer
 * stale, and the next use of one asks again with If-None-Match (a 304 keeps it).
 */
export class ContextFlags {
  private readonly cache = new Map<string, CachedContext>();
  private readonly maxContexts: number;

  constructor(private readonly options: ContextFlagsOptions) {
    this.maxContexts = options.maxContexts ?? DEFAULT_MAX_CONTEXTS;
  }

  /** The flags of a context; throws OfrepFailure when the server cannot answer them. */
  async flagsFor(context: EvaluationContext): Promise<ReadonlyMap<string, OfrepFlag>> {
    const body = bodyOf(context);
    let cached = this.cache.get(body);
    if (cached) {
      this.cache.delete(body);
      this.cache.set(body, cached);
      if (!cached.stale) return cached.flags;
    } else {
      cached = { body, etag: null, flags: new Map(), stale: true, pending: null };
      this.cache.set(body, cached);
      while (this.cache.size > this.maxContexts) this.cache.delete(this.cache.keys().next().value as string);
    }
    const entry = cached;
    entry.pending ??= this.fetchFlags(entry).finally(() => (entry.pending = null));
    return entry.pending;
  }

  /** A stream event was applied: every kept answer is asked again before its next use. */
  invalidate(): void {
    for (const cached of this.cache.values()) cached.stale = true;
  }

  clear(): void {
    this.cache.clear();
  }

  private async fetchFlags(cached: CachedContext): Promise<ReadonlyMap<string, OfrepFlag>> {
    // Marked fresh before the call: an event that arrives meanwhile marks it stale again.
    cached.stale = false;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-rc-version': this.options.version,
    };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    if (cached.etag) headers['if-none-match'] = cached.etag;
    let response: Response;
    try {
      response = await fetch(`${this.options.url}/ofrep/v1/evaluate/flags`, {
        method: 'POST',
        headers,
        body: cached.body,
      });
    } catch (error) {
      cached.stale = true;
      throw new OfrepFailure(ErrorCode.GENERAL, `OFREP at ${this.options.url}: ${String(error)}`);
    }
    if (response.status === 304) return cached.flags;
    const text = await response.text();
    let answer: { flags?: OfrepFlag[]; errorCode?: string; errorDetails?: string; detail?: string } = {};
    try {
      answer = JSON.parse(text) as typeof answer;
    } catch {
      // Reported below by status.
    }
    if (response.status !== 200 || !Array.isArray(answer.flags)) {
      cached.stale = true;
      const code =
        answer.errorCode && KNOWN_ERRORS.has(answer.errorCode) ? (answer.errorCode as ErrorCode) : ErrorCode.GENERAL;
      const why = answer.errorDetails ?? answer.detail ?? text.slice(0, 200);
      throw new OfrepFailure(code, `OFREP at ${this.options.url} answered ${response.status}: ${why}`);
    }
    cached.etag = response.headers.get('etag');
    cached.flags = new Map(answer.flags.map((flag) => [flag.key, flag]));
    return cached.flags;
  }
}

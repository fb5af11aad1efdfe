/** What a browser says of where a request comes from, and the host it was sent to. */
export interface RequestOrigin {
  /** The `Origin` header. */
  readonly origin?: string | undefined;
  /** The `Sec-Fetch-Site` header (every current browser sends it). */
  readonly fetchSite?: string | undefined;
  /** The host (with port) the request was sent to. */
  readonly host?: string | undefined;
}

/**
 * True when a browser sent the request from a page of another origin (another host, scheme or
 * port: `same-site` is not enough, a page on another port of the same host is another origin).
 * Requests that carry neither header come from programs, not pages, and count as same-origin.
 */
export function isCrossOrigin({ origin, fetchSite, host }: RequestOrigin): boolean {
  if (fetchSite !== undefined) return fetchSite !== 'same-origin' && fetchSite !== 'none';
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== host;
  } catch {
    return true; // `null` (a sandboxed page, a redirect across origins) or garbage
  }
}

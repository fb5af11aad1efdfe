/** A signed-in session as stored: its JSON and when it expires (ms since the epoch). */
export interface StoredSession {
  readonly data: string;
  readonly expiresAt: number;
}

/**
 * Server-side sessions, shared by every instance on the database. Stored under the SHA-256 of their
 * id, never the id itself (the cookie's secret): a copy of the database resumes no session.
 */
export interface SessionStore {
  put(sessionId: string, session: StoredSession): Promise<void>;
  /** The session, expired or not; undefined when there is none. */
  get(sessionId: string): Promise<StoredSession | undefined>;
  delete(sessionId: string): Promise<void>;
  deleteExpired(nowMs: number): Promise<void>;
}

/**
 * What SAML sign-ins remember across instances: the ids of the requests sent (checked against
 * InResponseTo) and of the assertions accepted (each opens one session, once).
 */
export interface SamlStateStore {
  /** Records a request id, forgetting those created before `expireBefore` (µs); false when it exists. */
  addRequest(id: string, createdAt: number, expireBefore: number): Promise<boolean>;
  /** When the request was sent (µs), or undefined. */
  requestCreatedAt(id: string): Promise<number | undefined>;
  /** Forgets an answered request; false when it was not there. */
  removeRequest(id: string): Promise<boolean>;
  /** Records an assertion as used, forgetting expired ones; false when it was used before (a replay). */
  markAssertionUsed(id: string, expiresAt: number, now: number): Promise<boolean>;
}

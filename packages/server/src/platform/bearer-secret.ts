import { createHash, randomBytes } from 'node:crypto';

/** How many leading characters of a credential are kept to tell credentials apart in lists. */
const SHOWN_PREFIX_LENGTH = 12;

/** A credential the server issues: shown once, stored only as its hash and a short prefix. */
export interface IssuedSecret {
  /** `<kind prefix>` + 32 random bytes in base64url: what the holder sends as a bearer token. */
  readonly secret: string;
  readonly hash: string;
  /** Its first characters, for lists and logs. */
  readonly prefix: string;
}

/**
 * The stored form of an issued credential: its SHA-256. The credential is 256 random bits, so a
 * slow password hash would add only cost on every call, and looking it up by hash compares no
 * secret in user code (nothing to time).
 */
export function hashOfSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Issues a new credential of a kind (`rck_` API keys, `rcp_` personal tokens). */
export function issueSecret(kindPrefix: string): IssuedSecret {
  const secret = kindPrefix + randomBytes(32).toString('base64url');
  return { secret, hash: hashOfSecret(secret), prefix: secret.slice(0, SHOWN_PREFIX_LENGTH) };
}

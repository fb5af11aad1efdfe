/**
 * What every credential the server issues keeps, whatever its kind (a service's API key, a user's
 * personal access token): never the secret, only its SHA-256 and first characters.
 */
export interface CredentialRecord {
  readonly id: string;
  readonly name: string;
  /** The SHA-256 of the secret, in hex: how a bearer credential is found. */
  readonly secretHash: string;
  /** The secret's first characters, to tell credentials apart in lists. */
  readonly prefix: string;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
}

/** The store of one kind of credential, each held by an owner (an API key's service, a token's user). */
export interface CredentialStore<R extends CredentialRecord> {
  insert(record: R): Promise<void>;
  /** An owner's credentials in the order of their kind, revoked (and expired) ones included. */
  listOf(ownerId: string): Promise<R[]>;
  get(id: string): Promise<R | undefined>;
  findByHash(secretHash: string): Promise<R | undefined>;
  /** Revokes a live credential and answers it as it is now; undefined if it was revoked already. */
  revoke(id: string, at: number): Promise<R | undefined>;
  /** Revokes every live credential of an owner; answers how many. */
  revokeAllOf(ownerId: string, at: number): Promise<number>;
  /** Records a use unless one was recorded after `notBefore`: one write per credential and interval. */
  touch(id: string, at: number, notBefore: number): Promise<void>;
}

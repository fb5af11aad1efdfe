import type { ProviderKind } from './identity.js';

/**
 * A personal access token as stored: never the token, only its SHA-256 and first characters. It acts
 * as the user who made it: a Local user with their current role, a user of another provider with the
 * roles their sign-in had when the token was made (kept here).
 */
export interface PersonalTokenRecord {
  readonly id: string;
  readonly userId: string;
  readonly provider: ProviderKind;
  /** The identity of the session that made it (id, e-mail, name, roles); Local users' roles are read fresh. */
  readonly identity: {
    readonly email: string | null;
    readonly name: string | null;
    readonly roles: readonly string[];
  };
  readonly name: string;
  readonly tokenHash: string;
  readonly prefix: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
}

export interface PersonalTokenStore {
  insert(token: PersonalTokenRecord): Promise<void>;
  /** A user's tokens, newest first, revoked and expired ones included. */
  listOf(userId: string): Promise<PersonalTokenRecord[]>;
  get(id: string): Promise<PersonalTokenRecord | undefined>;
  findByHash(tokenHash: string): Promise<PersonalTokenRecord | undefined>;
  revoke(id: string, at: number): Promise<PersonalTokenRecord | undefined>;
  /** Revokes every live token of a user (deleted, or a new password or role); answers how many. */
  revokeAllOf(userId: string, at: number): Promise<number>;
  /** Records a use unless one was recorded after `notBefore`: one write per token and interval. */
  touch(id: string, at: number, notBefore: number): Promise<void>;
}

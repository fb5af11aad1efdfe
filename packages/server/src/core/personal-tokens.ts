import type { CredentialRecord, CredentialStore } from './credentials.js';
import type { ProviderKind } from './identity.js';

/**
 * A personal access token as stored: never the token, only its SHA-256 and first characters. It acts
 * as the user who made it: a Local user with their current role, a user of another provider with the
 * roles their sign-in had when the token was made (kept here).
 */
export interface PersonalTokenRecord extends CredentialRecord {
  readonly userId: string;
  readonly provider: ProviderKind;
  /** The identity of the session that made it (id, e-mail, name, roles); Local users' roles are read fresh. */
  readonly identity: {
    readonly email: string | null;
    readonly name: string | null;
    readonly roles: readonly string[];
  };
  readonly expiresAt: number;
}

/** The personal access tokens of users; a user's tokens are listed newest first. */
export type PersonalTokenStore = CredentialStore<PersonalTokenRecord>;

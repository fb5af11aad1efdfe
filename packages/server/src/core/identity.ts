/** The policies roles are mapped to: `canAll` (administration), `canChange` (values), `canReveal` (secret values). */
export type PolicyName = 'canAll' | 'canChange' | 'canReveal';
export type ProviderKind = 'local' | 'openid' | 'jwt' | 'saml';

/** Who is calling, with roles and policies already resolved. */
export interface Identity {
  readonly id: string;
  readonly email: string | null;
  readonly name: string | null;
  readonly provider: ProviderKind;
  readonly roles: readonly string[];
  readonly policies: readonly PolicyName[];
  /** Local accounts: the password must be changed before anything else (the seeded default). */
  readonly passwordChangeRequired?: boolean;
}

/** The subject of an audit record. */
export interface Actor {
  readonly userId: string;
  readonly userName: string | null;
}

export function actorOf(identity: Identity): Actor {
  return { userId: identity.id, userName: identity.name ?? identity.email ?? identity.id };
}

export function hasPolicy(identity: Identity, policy: PolicyName): boolean {
  return identity.policies.includes(policy);
}

/** The actor an API key stands for in audit records. */
export function apiKeyActor(key: { readonly id: string; readonly name: string }): Actor {
  return { userId: `apikey:${key.id}`, userName: key.name };
}

/**
 * What is kept of a person to act as them later (a personal token) or to check them again (an
 * approval): who they were when it was made. Their roles then may no longer be theirs.
 */
export interface PersonSnapshot {
  readonly id: string;
  /** null for records kept before the provider was stored: looked up as a Local user, else without roles. */
  readonly provider: ProviderKind | null;
  readonly email: string | null;
  readonly name: string | null;
  readonly roles: readonly string[];
}

export const snapshotOf = (identity: Identity): PersonSnapshot => ({
  id: identity.id,
  provider: identity.provider,
  email: identity.email,
  name: identity.name,
  roles: identity.roles,
});

/**
 * Who a kept person is now: a Local user with their current role (null once deleted); a person of
 * another provider with the roles they had (the provider is not asked again until they sign in).
 */
export interface CurrentIdentities {
  /** `users`: the store to read Local users from (the write's own, inside a transaction). */
  identityOf(users: LocalUserLookup, person: PersonSnapshot): Promise<Identity | null>;
}

/** What reading a Local user's current role takes. */
export interface LocalUserLookup {
  get(username: string): Promise<{ readonly role: string } | undefined>;
}

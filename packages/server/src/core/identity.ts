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

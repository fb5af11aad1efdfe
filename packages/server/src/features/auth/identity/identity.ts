import type { Identity, PolicyName, ProviderKind } from '../../../core/index.js';
import type { AuthorizationConfig } from '../../../platform/config/app-config.js';

/** Claims as providers deliver them: a claim type maps to one value or several. */
export type Claims = Readonly<Record<string, unknown>>;

export interface ClaimSettings {
  readonly idClaimType: string;
  readonly emailClaimType: string;
  readonly roleClaimType: string;
  readonly authorization: AuthorizationConfig;
}

const WS_CLAIMS = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/';
const MS_CLAIMS = 'http://schemas.microsoft.com/ws/2008/06/identity/claims/';

/**
 * Well-known claim URIs and their short names are the same claim (docs/configuration.md), so
 * configuration written for one works with tokens that carry the other.
 */
const CLAIM_ALIASES: Readonly<Record<string, string>> = {
  sub: 'nameidentifier',
  [`${WS_CLAIMS}nameidentifier`]: 'nameidentifier',
  nameidentifier: 'nameidentifier',
  email: 'emailaddress',
  [`${WS_CLAIMS}emailaddress`]: 'emailaddress',
  emailaddress: 'emailaddress',
  role: 'role',
  [`${MS_CLAIMS}role`]: 'role',
  name: 'name',
  [`${WS_CLAIMS}name`]: 'name',
};

function canonicalClaimType(type: string): string {
  return CLAIM_ALIASES[type] ?? CLAIM_ALIASES[type.toLowerCase()] ?? type;
}

function asStrings(value: unknown): string[] {
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (Array.isArray(value)) return value.flatMap(asStrings);
  return [];
}

/** Every value of the claims whose type is (an alias of) the given type. */
export function claimValues(claims: Claims, type: string): string[] {
  const wanted = canonicalClaimType(type);
  return Object.entries(claims)
    .filter(([claimType]) => canonicalClaimType(claimType) === wanted)
    .flatMap(([, value]) => asStrings(value));
}

/** canChange also admits every role of canAll; canReveal admits only its own roles. */
export function policiesFor(roles: readonly string[], authorization: AuthorizationConfig): PolicyName[] {
  const has = (allowed: readonly string[]): boolean => roles.some((role) => allowed.includes(role));
  const canAll = has(authorization.policies.canAll);
  const canChange = canAll || has(authorization.policies.canChange);
  const policies: PolicyName[] = [];
  if (canAll) policies.push('canAll');
  if (canChange) policies.push('canChange');
  // Reading secrets is its own policy: canAll does not imply it.
  if (has(authorization.policies.canReveal)) policies.push('canReveal');
  return policies;
}

/**
 * Identity → roles → policies, the one step every provider (Local, OpenId, Jwt, Saml) goes through.
 * Returns null when the claims carry no user id.
 */
export function resolveIdentity(provider: ProviderKind, claims: Claims, settings: ClaimSettings): Identity | null {
  const id = claimValues(claims, settings.idClaimType)[0] ?? claimValues(claims, 'sub')[0];
  if (!id) return null;
  const email = claimValues(claims, settings.emailClaimType)[0] ?? null;
  const name = claimValues(claims, 'name')[0] ?? null;
  const roleTypes = new Set([...settings.authorization.roleClaimTypes, settings.roleClaimType].map(canonicalClaimType));
  const roles = [...new Set([...roleTypes].flatMap((type) => claimValues(claims, type)))];
  return { id, email, name, provider, roles, policies: policiesFor(roles, settings.authorization) };
}

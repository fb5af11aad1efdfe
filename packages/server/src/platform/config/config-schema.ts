/**
 * The keys the server understands, in their canonical spelling. Used to reject unknown keys
 * inside our sections (typo protection) and to name keys in messages the way the docs spell them.
 * `value` is a single value; `list` is a string array (JSON array, or `Key:0`, `Key:1`, ...).
 */
export type SchemaNode = 'value' | 'list' | SchemaSection;

export interface SchemaSection {
  readonly [key: string]: SchemaNode;
}

export const configSchema = {
  Server: {
    Port: 'value',
    Host: 'value',
    ShutdownTimeoutSeconds: 'value',
    TrustProxy: 'list',
    Tls: { CertificatePath: 'value', KeyPath: 'value' },
  },
  Database: { Url: 'value', DataDir: 'value' },
  Authentication: {
    Provider: 'value',
    EmailClaimType: 'value',
    RoleClaimType: 'value',
    IdClaimType: 'value',
    Local: { DefaultAdminUsername: 'value', DefaultAdminPassword: 'value' },
    OpenId: {
      Authority: 'value',
      ClientId: 'value',
      ClientSecret: 'value',
      RequireHttpsMetadata: 'value',
      ResponseType: 'value',
      Scope: 'list',
    },
    Jwt: {
      Authority: 'value',
      Audience: 'value',
      RequireHttpsMetadata: 'value',
      TokenValidationParameters: { ValidateAudience: 'value', ValidateIssuer: 'value' },
      ClientId: 'value',
      AuthorizeUrl: 'value',
      TokenUrl: 'value',
      Scopes: 'value',
    },
    Saml: {
      SpOptionsEntityId: 'value',
      SpOptionsModulePath: 'value',
      IdentityProviderEntityId: 'value',
      IdentityProviderMetadataUrl: 'value',
    },
  },
  Authorization: {
    Policies: { canAll: 'list', canChange: 'list' },
    RoleClaimTypes: 'list',
  },
  Session: { IdleTimeoutMinutes: 'value', Secret: 'value' },
  Grpc: { RequireAuthentication: 'value', KeepAliveSeconds: 'value' },
  Logging: { Level: 'value' },
} as const satisfies SchemaSection;

/** Finds a child of a section ignoring case; returns its canonical name and node. */
export function findSchemaChild(
  section: SchemaSection,
  name: string,
): { readonly name: string; readonly node: SchemaNode } | undefined {
  const wanted = name.toLowerCase();
  for (const [childName, node] of Object.entries(section)) {
    if (childName.toLowerCase() === wanted) return { name: childName, node };
  }
  return undefined;
}

export function isKnownSection(name: string): boolean {
  return findSchemaChild(configSchema, name) !== undefined;
}

/**
 * The typed, validated and frozen configuration of the server.
 * Produced once at start by `loadConfig`; nothing else reads `process.env`.
 * Key names in comments are the external keys (docs/configuration.md), matched case-insensitively.
 */

export type AuthProviderName = 'Local' | 'OpenId' | 'Jwt' | 'Saml';

export interface TlsConfig {
  /** Server:Tls:CertificatePath */
  readonly certificatePath: string;
  /** Server:Tls:KeyPath */
  readonly keyPath: string;
  /** The PEM contents, read and checked while loading the configuration. */
  readonly cert: Buffer;
  readonly key: Buffer;
}

export interface ServerConfig {
  /** Server:Port, default 8080 (0 picks a free port). */
  readonly port: number;
  /** Server:Host, default 0.0.0.0 */
  readonly host: string;
  /** Present when both Server:Tls:CertificatePath and Server:Tls:KeyPath are set. */
  readonly tls: TlsConfig | null;
  /** Server:ShutdownTimeoutSeconds, default 10: how long graceful shutdown waits before closing connections. */
  readonly shutdownTimeoutSeconds: number;
  /** Server:RequestTimeoutSeconds, default 30: how long a request's headers and body may take to arrive. */
  readonly requestTimeoutSeconds: number;
  /** Server:MaxConnections, default 0: derived from the open-file limit at start. */
  readonly maxConnections: number;
  /** Server:MaxConnectionsPerAddress, default 0 (no limit): open connections allowed per client address. */
  readonly maxConnectionsPerAddress: number;
  /**
   * Server:MaxStreams, default 50000: open StartSubscribe streams at most (every protocol), half of
   * them at most without credentials; beyond, RESOURCE_EXHAUSTED.
   */
  readonly maxStreams: number;
  /** Server:MaxStreamsPerConnection, default 100 (0: no limit): open StartSubscribe streams per HTTP/2 connection. */
  readonly maxStreamsPerConnection: number;
  /** Server:MaxStreamsPerAddress, default 2000 (0: no limit): open StartSubscribe streams per peer address. */
  readonly maxStreamsPerAddress: number;
  /** Server:IdleTimeoutSeconds, default 120: how long an HTTP/2 connection may go without an open stream. */
  readonly idleTimeoutSeconds: number;
  /**
   * Server:TrustProxy, default none: addresses or CIDR ranges (or `loopback`, `uniquelocal`) of
   * reverse proxies whose X-Forwarded-Proto/-Host/-For are believed, so sign-in redirect URLs and
   * Secure cookies follow the public address.
   */
  readonly trustProxy: readonly string[];
  /** Server:ConsoleDir: the built web console to serve (resolved); null means the one shipped with the server. */
  readonly consoleDir: string | null;
  /** Server:PrimaryUrl (no trailing slash): where a follower forwards writes; null refuses them. */
  readonly primaryUrl: string | null;
}

export interface DatabaseConfig {
  /** Database:Url, a postgres:// URL; null selects the embedded database. */
  readonly url: string | null;
  /** Database:DataDir, default ./data (resolved against the working directory); `memory://` keeps everything in memory. */
  readonly dataDir: string;
  /** Database:FollowIntervalMilliseconds, default 200: how often a follower reads the change log. */
  readonly followIntervalMs: number;
  /** Database:RoleCheckIntervalMilliseconds, default 1000: how often the database's role (primary or standby) is checked. */
  readonly roleCheckIntervalMs: number;
  /** Database:MaxFollowerLagSeconds, default 30: a follower further behind answers /readyz with 503. */
  readonly maxFollowerLagSeconds: number;
}

export interface LocalAuthConfig {
  /** Authentication:Local:DefaultAdminUsername, default admin */
  readonly defaultAdminUsername: string;
  /** Authentication:Local:DefaultAdminPassword, default admin */
  readonly defaultAdminPassword: string;
  /** Authentication:Local:SignInLimits: failed sign-ins allowed within the window before 429. */
  readonly signInLimits: {
    /** PerUserAndAddress, default 10 */
    readonly perUserAndAddress: number;
    /** PerAddress, default 50: across usernames from one client address */
    readonly perAddress: number;
    /** PerUser, default 50: one username from any address */
    readonly perUser: number;
    /** WindowMinutes, default 15 */
    readonly windowMinutes: number;
  };
}

export interface OpenIdAuthConfig {
  readonly authority: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** default true */
  readonly requireHttpsMetadata: boolean;
  /** default 'code' */
  readonly responseType: string;
  /** default ['openid', 'profile', 'email'] */
  readonly scope: readonly string[];
}

export interface JwtAuthConfig {
  readonly authority: string;
  readonly audience: string;
  /** default true */
  readonly requireHttpsMetadata: boolean;
  readonly tokenValidationParameters: {
    /** default true */
    readonly validateAudience: boolean;
    /** default true */
    readonly validateIssuer: boolean;
  };
  readonly clientId: string | null;
  readonly authorizeUrl: string | null;
  readonly tokenUrl: string | null;
  /** space-separated scope string, default null */
  readonly scopes: string | null;
}

export interface SamlAuthConfig {
  readonly spOptionsEntityId: string;
  /** default /saml2 */
  readonly spOptionsModulePath: string;
  readonly identityProviderEntityId: string;
  readonly identityProviderMetadataUrl: string;
  /** default true: the metadata URL must be https:// (false allows http:// for development) */
  readonly requireHttpsMetadata: boolean;
}

export interface AuthenticationConfig {
  /** Authentication:Provider, default Saml (the shipped appsettings.json sets Local). */
  readonly provider: AuthProviderName;
  /** default http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress */
  readonly emailClaimType: string;
  /** default http://schemas.microsoft.com/ws/2008/06/identity/claims/role */
  readonly roleClaimType: string;
  /** default http://schemas.xmlsoap.org/ws/2005/05/identity/claims/nameidentifier */
  readonly idClaimType: string;
  readonly local: LocalAuthConfig;
  /** Only the active provider's section is validated and present; the others are null. */
  readonly openId: OpenIdAuthConfig | null;
  readonly jwt: JwtAuthConfig | null;
  readonly saml: SamlAuthConfig | null;
}

export interface AuthorizationConfig {
  /**
   * Authorization:Policies:canAll / canChange / canReveal: role names per policy. Defaults ['admin'],
   * ['developer'] and ['admin'].
   */
  readonly policies: {
    readonly canAll: readonly string[];
    readonly canChange: readonly string[];
    readonly canReveal: readonly string[];
  };
  /** Authorization:RoleClaimTypes, default ['role', 'roles', 'groups', 'name']. */
  readonly roleClaimTypes: readonly string[];
}

export interface SessionConfig {
  /** Session:IdleTimeoutMinutes, default 480 */
  readonly idleTimeoutMinutes: number;
  /** Session:Secret, at least 32 characters; null means a secret kept in the database (shared by instances). */
  readonly secret: string | null;
}

export interface AppConfig {
  /** APP_ENV, default Production */
  readonly environment: string;
  readonly server: ServerConfig;
  readonly database: DatabaseConfig;
  readonly authentication: AuthenticationConfig;
  readonly authorization: AuthorizationConfig;
  readonly session: SessionConfig;
  readonly grpc: {
    /** Grpc:RequireAuthentication, default true (the shipped appsettings.json turns it off for the quick start). */
    readonly requireAuthentication: boolean;
    /**
     * Grpc:KeepAliveSeconds, default 30: every HTTP/2 connection is pinged this often; one whose
     * previous ping is still unanswered is closed, so dead subscribers are noticed.
     */
    readonly keepAliveSeconds: number;
    /** Grpc:MaxReceiveMessageBytes, default 4 MiB: the largest request message, before and after decompression. */
    readonly maxReceiveMessageBytes: number;
    /** Grpc:GetConfigLayout, default Spec: `Konfigo` answers GetConfig as the existing Konfigo SDKs expect. */
    readonly getConfigLayout: 'Spec' | 'Konfigo';
  };
  /** Versions:MaxEntries and Versions:MaxBytes: what one version may hold (live entries, UTF-8 bytes of their text). */
  readonly versions: {
    readonly maxEntries: number;
    readonly maxBytes: number;
    /** Versions:RequiredApprovals, default 1: approvals a change request of a protected version needs. */
    readonly requiredApprovals: number;
  };
  /** Authentication:Tokens:MaxLifetimeDays, default 90: the longest a personal access token lives. */
  readonly tokens: { readonly maxLifetimeDays: number };
  readonly webhooks: {
    /** Webhooks:AllowPrivateNetworks, default false: loopback, private and link-local targets allowed. */
    readonly allowPrivateNetworks: boolean;
    /** Webhooks:RetrySchedule: seconds to wait after each failed attempt, one per retry. */
    readonly retrySchedule: readonly number[];
  };
  /** Ofrep:AllowedOrigins, default none: the browser origins CORS admits on /ofrep/v1. */
  readonly ofrep: { readonly allowedOrigins: readonly string[] };
  /** Validation:TimeoutSeconds, default 5: the wait for each validator's answer before a write. */
  readonly validation: { readonly timeoutSeconds: number };
  /**
   * Rollouts:TickMilliseconds, default 250 (how often due rollouts are moved) and
   * Rollouts:DisconnectGraceSeconds, default 30 (how long a receiver may be away before it is gone).
   */
  readonly rollouts: { readonly tickMilliseconds: number; readonly disconnectGraceSeconds: number };
  /**
   * Secrets:MasterKeyFile (absolute path, or null: the embedded database then keeps
   * `<DataDir>/secrets.key`) and Secrets:PreviousKeyFiles (retired keys that still decrypt).
   */
  readonly secrets: { readonly masterKeyFile: string | null; readonly previousKeyFiles: readonly string[] };
  readonly logging: {
    /** Logging:Level, default info (one of fatal, error, warn, info, debug, trace, silent) */
    readonly level: string;
  };
  /**
   * What the sources hold that the server ignores but an operator should hear of (another tool's
   * section in a settings file, a variable that looks like a misspelled one of ours): logged at
   * start, listed by `check-config`.
   */
  readonly warnings: readonly string[];
}

/**
 * Every configuration key the server understands, once: its kind (how it is parsed and checked),
 * its default, and its documentation. The typo check (config-schema.ts), the reads in
 * load-config.ts and the key tables of docs/configuration.md and README.md
 * (`npm run docs:config`, checked by `npm run check:generated`) all come from here.
 */

export type KeyKind =
  | { readonly type: 'integer'; readonly default: number; readonly min: number; readonly max?: number }
  | { readonly type: 'positive-number'; readonly default: number }
  | { readonly type: 'boolean'; readonly default: boolean }
  /** Text that may not be empty when set. */
  | { readonly type: 'text'; readonly default: string }
  /** Text, or null when unset or empty. */
  | { readonly type: 'optional-text' }
  /** Text that the active sign-in provider (`provider`) cannot do without. */
  | { readonly type: 'required-text' }
  | { readonly type: 'choice'; readonly default: string; readonly values: readonly string[] }
  | { readonly type: 'list'; readonly default: readonly string[] };

export interface KeyDefinition {
  readonly kind: KeyKind;
  /** What the key does, for the docs (Markdown). */
  readonly doc: string;
  /** The default as the docs show it, when the plain default would mislead. */
  readonly docDefault?: string;
  /** Neither trimmed nor ever repeated in messages. */
  readonly secret?: boolean;
  /** Read and checked only while this provider is active. */
  readonly provider?: 'Local' | 'OpenId' | 'Jwt' | 'Saml';
  /** Also listed in the README's short table. */
  readonly essential?: boolean;
}

const CLAIMS = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims';
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const PROVIDERS = ['Local', 'OpenId', 'Jwt', 'Saml'] as const;

/**
 * The default caps of a version keep its GetConfig answer within the 4 MiB a gRPC client accepts by
 * default (grpc-js, grpc-dotnet, grpcio). Per entry the answer holds the key and the value (counted in
 * Versions:MaxBytes, with the entry's other texts) and at most 39 bytes of protobuf around them: the
 * entry's tag and length (4), the key's tag and length (3), the value's StringValue wrapper (tag and
 * length twice, 8), the generation (6), the timestamp message (14: seconds and nanos), the type (2),
 * is_secret (2, secrets only). The Konfigo layout adds two ids (2 × 38 bytes), the gRPC frame header
 * 5. So 10,000 entries and 3.5 MiB of text make at most 3,670,016 + 390,000 + 81 = 4,060,097 bytes,
 * 131 KiB below 4 MiB (4,194,304). A stream's first event of a whole version has the same entry layout.
 */
const VERSION_MAX_BYTES_DEFAULT = 3.5 * 1024 * 1024;

export const CONFIG_KEYS = {
  'Server:Port': {
    kind: { type: 'integer', default: 8080, min: 0, max: 65535 },
    doc: 'the one port for REST, gRPC (h2c) and TLS; 0 picks a free port',
    essential: true,
  },
  'Server:Host': { kind: { type: 'text', default: '0.0.0.0' }, doc: 'listen address', essential: true },
  'Server:Tls:CertificatePath': {
    kind: { type: 'optional-text' },
    doc: 'PEM certificate; with `Server:Tls:KeyPath` the port also speaks TLS (ALPN `h2` and `http/1.1`); both or neither, checked against each other at start',
    essential: true,
  },
  'Server:Tls:KeyPath': { kind: { type: 'optional-text' }, doc: 'PEM private key of the certificate', essential: true },
  'Server:ShutdownTimeoutSeconds': {
    kind: { type: 'positive-number', default: 10 },
    doc: 'how long a graceful shutdown waits for in-flight requests',
  },
  'Server:RequestTimeoutSeconds': {
    kind: { type: 'positive-number', default: 30 },
    doc: "how long a request's headers and body may take to arrive; a slower HTTP/1.1 request is answered 408 and closed, a slower HTTP/2 request stream is reset (slow-client protection)",
  },
  'Server:MaxConnections': {
    kind: { type: 'integer', default: 0, min: 0 },
    docDefault: '`0`: derived',
    doc: 'open connections at most; `0` derives it from the open-file limit (the limit less 10 %, at least 128 less). At the limit a new connection closes the one idle the longest and is refused only when none is idle (see [Connection limits](#connection-limits))',
  },
  'Server:MaxConnectionsPerAddress': {
    kind: { type: 'integer', default: 0, min: 0 },
    doc: "open connections allowed per client address; 0 means no limit. At the limit a new connection closes that address's connection idle the longest, and is refused only when none is idle. Leave it off behind a load balancer or proxy: every connection then comes from its address",
  },
  'Server:MaxStreams': {
    kind: { type: 'integer', default: 50_000, min: 1 },
    doc: 'open change streams (StartSubscribe, every protocol) at most on this instance; streams without credentials hold at most half of them. Beyond it a new stream ends at once with `RESOURCE_EXHAUSTED` and a `retry-after-ms` trailer (the SDK waits that long), so an overloaded instance refuses newcomers instead of degrading everyone (see [Stream limits](#stream-limits))',
  },
  'Server:MaxStreamsPerConnection': {
    kind: { type: 'integer', default: 100, min: 0 },
    doc: 'open change streams at most on one HTTP/2 connection; `0` means no limit. Beyond it a new stream on that connection ends with `RESOURCE_EXHAUSTED` and `retry-after-ms`. Raise it behind a proxy that carries many clients over one connection',
  },
  'Server:MaxStreamsPerAddress': {
    kind: { type: 'integer', default: 2000, min: 0 },
    doc: "open change streams at most from one peer address (the connection's, `Server:TrustProxy` does not apply); `0` means no limit. Beyond it a new stream from that address ends with `RESOURCE_EXHAUSTED` and `retry-after-ms`. Behind a load balancer or proxy every stream comes from its address: raise it to the fleet behind it, or set `0`",
  },
  'Server:IdleTimeoutSeconds': {
    kind: { type: 'positive-number', default: 120 },
    doc: 'an HTTP/2 connection without an open stream for this long is closed with GOAWAY; an open stream (a StartSubscribe) keeps it however quiet. HTTP/1.1 keep-alive connections close after 5 s, or this when shorter',
  },
  'Server:TrustProxy': {
    kind: { type: 'list', default: [] },
    docDefault: 'none',
    doc: 'addresses or ranges (`loopback`, `10.0.0.0/8`, …) of reverse proxies whose `X-Forwarded-Proto`/`-Host`/`-For` are believed: sign-in redirect URLs, Secure cookies and the client address of rate limits then follow the public side',
  },
  'Server:ConsoleDir': {
    kind: { type: 'optional-text' },
    docDefault: 'the console that comes with the server',
    doc: 'folder of the built web console (`index.html` and `assets/`), relative to the working directory. The server serves a copy taken at start, so a rebuild or an upgrade of these files never breaks the console of a running server',
  },
  'Server:PrimaryUrl': {
    kind: { type: 'optional-text' },
    docDefault: 'none',
    doc: "on a follower (its `Database:Url` a PostgreSQL standby), the primary region's address (`https://config.eu.example.com`): writes, sign-ins and CreateVersion go there with the caller's credentials; unset, they are refused (503). See [regions.md](regions.md)",
  },
  'Database:Url': {
    kind: { type: 'optional-text' },
    secret: true,
    doc: '`postgres://` or `postgresql://` URL; unset means the embedded SQLite database',
    essential: true,
  },
  'Database:FollowIntervalMilliseconds': {
    kind: { type: 'integer', default: 200, min: 10, max: 60_000 },
    doc: 'on a follower, the pause between two reads of the change log on the standby (NOTIFY does not reach a standby): changes reach its streams at most this much later than replication brings them, for one small query per read',
  },
  'Database:RoleCheckIntervalMilliseconds': {
    kind: { type: 'integer', default: 1000, min: 100, max: 600_000 },
    doc: 'with PostgreSQL, how often an instance asks its database whether it is a primary or a standby, and a follower measures its lag: a promoted standby turns its followers into primaries at most this much later (one small query each time)',
  },
  'Database:MaxFollowerLagSeconds': {
    kind: { type: 'positive-number', default: 30 },
    doc: "on a follower, `/readyz` answers 503 while the standby's replay is further behind what it received from the primary than this (`realtime_follower_lag_seconds`)",
  },
  'Database:DataDir': {
    kind: { type: 'text', default: './data' },
    doc: 'folder of the embedded database (file `realtime-config.db`, WAL mode), relative to the working directory, created owner-only (0700, its files 0600); `memory://` keeps it in memory',
    essential: true,
  },
  'Authentication:Provider': {
    kind: { type: 'choice', default: 'Saml', values: PROVIDERS },
    docDefault: '`Saml` (`Local` in the shipped `appsettings.json`)',
    doc: 'the one sign-in provider: `Local`, `OpenId`, `Jwt` or `Saml`',
    essential: true,
  },
  'Authentication:IdClaimType': {
    kind: { type: 'text', default: `${CLAIMS}/nameidentifier` },
    doc: 'claim holding the user id; `sub` is the same claim',
  },
  'Authentication:EmailClaimType': {
    kind: { type: 'text', default: `${CLAIMS}/emailaddress` },
    doc: 'claim holding the e-mail; `email` is the same claim',
  },
  'Authentication:RoleClaimType': {
    kind: { type: 'text', default: 'http://schemas.microsoft.com/ws/2008/06/identity/claims/role' },
    doc: 'claim holding roles; `role` is the same claim; often `groups`',
  },
  'Authentication:Local:DefaultAdminUsername': {
    kind: { type: 'text', default: 'admin' },
    doc: 'the seeded admin, created at start when missing, with role `admin`',
    essential: true,
  },
  'Authentication:Local:DefaultAdminPassword': {
    kind: { type: 'text', default: 'admin' },
    secret: true,
    doc: 'applied only when the account is created; while it is unchanged every start logs a warning and the console asks for a new password at sign-in',
    essential: true,
  },
  'Authentication:Local:SignInLimits:PerUserAndAddress': {
    kind: { type: 'integer', default: 10, min: 1 },
    doc: 'failed sign-ins of one username from one address per window; then 429 with `Retry-After`',
  },
  'Authentication:Local:SignInLimits:PerAddress': {
    kind: { type: 'integer', default: 50, min: 1 },
    doc: 'failed sign-ins from one address across usernames (password spraying)',
  },
  'Authentication:Local:SignInLimits:PerUser': {
    kind: { type: 'integer', default: 50, min: 1 },
    doc: 'failed sign-ins of one username from any address (distributed guessing); then the addresses that failed are refused, while an address without failures still signs in, so nobody can lock a user out',
  },
  'Authentication:Local:SignInLimits:WindowMinutes': {
    kind: { type: 'integer', default: 15, min: 1 },
    doc: 'the window of the three limits above',
  },
  'Authentication:Tokens:MaxLifetimeDays': {
    kind: { type: 'integer', default: 90, min: 1 },
    doc: 'the longest a personal access token (`rcp_…`) lives: a token asked for without an expiry gets it, a later expiry is shortened to it',
  },
  'Authentication:OpenId:Authority': {
    kind: { type: 'required-text' },
    provider: 'OpenId',
    doc: 'provider URL; discovery is read from `{Authority}/.well-known/openid-configuration`',
  },
  'Authentication:OpenId:ClientId': {
    kind: { type: 'required-text' },
    provider: 'OpenId',
    doc: 'registered client id',
  },
  'Authentication:OpenId:ClientSecret': {
    kind: { type: 'required-text' },
    provider: 'OpenId',
    secret: true,
    doc: 'client secret',
  },
  'Authentication:OpenId:RequireHttpsMetadata': {
    kind: { type: 'boolean', default: true },
    provider: 'OpenId',
    doc: '`false` allows an `http://` authority (development only)',
  },
  'Authentication:OpenId:ResponseType': {
    kind: { type: 'text', default: 'code' },
    provider: 'OpenId',
    doc: 'Authorization Code Flow (with PKCE)',
  },
  'Authentication:OpenId:Scope': {
    kind: { type: 'list', default: ['openid', 'profile', 'email'] },
    provider: 'OpenId',
    doc: 'scopes; add the one that carries roles, for example `groups`',
  },
  'Authentication:Jwt:Authority': {
    kind: { type: 'required-text' },
    provider: 'Jwt',
    doc: 'provider URL; signing keys come from its discovery document',
  },
  'Authentication:Jwt:Audience': { kind: { type: 'required-text' }, provider: 'Jwt', doc: 'expected `aud`' },
  'Authentication:Jwt:RequireHttpsMetadata': {
    kind: { type: 'boolean', default: true },
    provider: 'Jwt',
    doc: '`false` allows an `http://` authority (development only)',
  },
  'Authentication:Jwt:TokenValidationParameters:ValidateAudience': {
    kind: { type: 'boolean', default: true },
    provider: 'Jwt',
    doc: 'check `aud`',
  },
  'Authentication:Jwt:TokenValidationParameters:ValidateIssuer': {
    kind: { type: 'boolean', default: true },
    provider: 'Jwt',
    doc: 'check `iss` against the discovery document',
  },
  'Authentication:Jwt:ClientId': {
    kind: { type: 'optional-text' },
    provider: 'Jwt',
    doc: 'given to the web console through `GET /auth/config` (Authorization Code with PKCE)',
  },
  'Authentication:Jwt:AuthorizeUrl': {
    kind: { type: 'optional-text' },
    provider: 'Jwt',
    doc: 'authorization endpoint for providers without discovery or with other paths',
  },
  'Authentication:Jwt:TokenUrl': { kind: { type: 'optional-text' }, provider: 'Jwt', doc: 'token endpoint' },
  'Authentication:Jwt:Scopes': { kind: { type: 'optional-text' }, provider: 'Jwt', doc: 'space-separated scopes' },
  'Authentication:Saml:SpOptionsEntityId': {
    kind: { type: 'required-text' },
    provider: 'Saml',
    doc: 'EntityID of this service provider, typically the URL of its metadata',
  },
  'Authentication:Saml:SpOptionsModulePath': {
    kind: { type: 'text', default: '/saml2' },
    provider: 'Saml',
    doc: 'path prefix of `/Acs`, `/Metadata`, `/Logout`',
  },
  'Authentication:Saml:IdentityProviderEntityId': {
    kind: { type: 'required-text' },
    provider: 'Saml',
    doc: "the identity provider's EntityID; responses from any other are refused",
  },
  'Authentication:Saml:IdentityProviderMetadataUrl': {
    kind: { type: 'required-text' },
    provider: 'Saml',
    doc: 'where the IdP metadata is downloaded at start',
  },
  'Authentication:Saml:RequireHttpsMetadata': {
    kind: { type: 'boolean', default: true },
    provider: 'Saml',
    doc: '`false` allows an `http://` metadata URL (development only)',
  },
  'Authorization:Policies:canAll': {
    kind: { type: 'list', default: ['admin'] },
    doc: 'roles given **Administer**: create and delete services, manage users, act as an owner of every service',
  },
  'Authorization:Policies:canChange': {
    kind: { type: 'list', default: ['developer'] },
    doc: 'roles given **Change values**: see every service, change values where an editor or owner; roles of `canAll` always included',
  },
  'Authorization:Policies:canReveal': {
    kind: { type: 'list', default: ['admin'] },
    doc: 'roles given **Reveal secrets**: read secret values (reveal one, export with `includeSecrets`, receive secrets over gRPC with a personal or Jwt token, create API keys with the `secrets` scope)',
  },
  'Authorization:RoleClaimTypes': {
    kind: { type: 'list', default: ['role', 'roles', 'groups', 'name'] },
    doc: 'claim types searched for roles, besides `RoleClaimType`. A `name` claim is often editable by the user at the identity provider; drop it from this list when roles must not come from it',
  },
  'Session:IdleTimeoutMinutes': {
    kind: { type: 'integer', default: 480, min: 1 },
    doc: 'sign-in session lifetime without use; renewed (written, cookie sent again) once a tenth of it has passed',
  },
  'Session:Secret': {
    kind: { type: 'optional-text' },
    secret: true,
    doc: 'cookie-signing secret (≥ 32 characters); unset: generated once and kept in the database (sealed by the master key of secret values when there is one), shared by all instances',
  },
  'Secrets:MasterKeyFile': {
    kind: { type: 'optional-text' },
    docDefault: '`<DataDir>/secrets.key` with the embedded database; none with PostgreSQL',
    doc: 'file holding the master key of secret values: 32 random bytes in base64 (`openssl rand -base64 32`), relative to the working directory. With the embedded database and no key the server creates `secrets.key` (0600) in `Database:DataDir`, only for a database that holds no sealed value; with PostgreSQL and no key, secrets are refused (409). Values no configured key opens stop the start. Backups and rotation: `docs/secrets.md`',
    essential: true,
  },
  'Secrets:PreviousKeyFiles': {
    kind: { type: 'list', default: [] },
    docDefault: 'none',
    doc: 'files of retired master keys that still decrypt, until `POST /api/admin/secrets/rotate` has re-wrapped every value with the current key',
  },
  'Grpc:RequireAuthentication': {
    kind: { type: 'boolean', default: true },
    docDefault: '`true` (`false` in the shipped `appsettings.json`)',
    doc: 'every gRPC call needs an API key or a token (see [Machine access](#machine-access-grpc)); while `false`, every start logs a warning',
    essential: true,
  },
  'Grpc:KeepAliveSeconds': {
    kind: { type: 'positive-number', default: 30 },
    doc: 'every HTTP/2 connection is pinged this often; one whose previous ping is unanswered is closed',
  },
  'Grpc:MaxReceiveMessageBytes': {
    kind: { type: 'integer', default: 4 * 1024 * 1024, min: 1024, max: 64 * 1024 * 1024 },
    docDefault: '`4194304` (4 MiB)',
    doc: 'the largest request message on every gRPC path, before and after decompression; larger ones answer `RESOURCE_EXHAUSTED`',
  },
  'Grpc:GetConfigLayout': {
    kind: { type: 'choice', default: 'Spec', values: ['Spec', 'Konfigo'] },
    doc: '`Konfigo` answers GetConfig as the existing Konfigo .NET/Go/Python SDKs expect (`service_id = 1, version_id = 2, entries = 3`)',
  },
  'Versions:MaxEntries': {
    kind: { type: 'integer', default: 10_000, min: 1 },
    doc: "live entries one version may hold. A change that would add entries past it is refused (REST 400, gRPC `RESOURCE_EXHAUSTED`) and stores nothing; deleting is always allowed. With `Versions:MaxBytes`, the default keeps a full version's GetConfig answer under the 4 MiB message limit of gRPC clients (see [Version size](#version-size))",
  },
  'Versions:MaxBytes': {
    kind: { type: 'integer', default: VERSION_MAX_BYTES_DEFAULT, min: 1024 },
    docDefault: '`3670016` (3.5 MiB)',
    doc: 'UTF-8 bytes of text one version may hold: key, value, name, description, group name, group description and allowed values of every live entry. A change that would grow a version past it is refused like one past `Versions:MaxEntries`; shrinking is always allowed. The import body limit follows from both caps',
  },
  'Versions:RequiredApprovals': {
    kind: { type: 'integer', default: 1, min: 1 },
    doc: 'approvals, by editors or owners other than its author, a change request of a protected version needs before it can be applied',
  },
  'Webhooks:AllowPrivateNetworks': {
    kind: { type: 'boolean', default: false },
    doc: 'lets webhooks reach loopback, private, link-local and unspecified addresses (on-premise receivers, tests). Off, such a target is refused when the webhook is saved (400) and again at each delivery, after DNS resolution',
  },
  'Webhooks:RetrySchedule': {
    kind: { type: 'list', default: ['5', '300', '1800', '7200', '18000', '36000', '50400', '72000', '86400'] },
    docDefault:
      '`[5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]` (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h)',
    doc: 'seconds to wait after each failed delivery attempt (±10 % jitter), one per retry; after the last the delivery is `failed`',
  },
  'Validation:TimeoutSeconds': {
    kind: { type: 'positive-number', default: 5 },
    doc: "how long the server waits for each validator's answer before a write (they are asked in parallel); no answer in time refuses the write (400, keyword `validator`). Validators reach the networks `Webhooks:AllowPrivateNetworks` allows (docs/validation.md)",
  },
  'Rollouts:TickMilliseconds': {
    kind: { type: 'positive-number', default: 250 },
    doc: 'how often each server instance looks for rollouts whose next step, completion or automatic rollback is due (docs/rollouts.md); a step reaches its instances within about this much after its time',
  },
  'Rollouts:DisconnectGraceSeconds': {
    kind: { type: 'positive-number', default: 30 },
    doc: "how long an instance that received a rollout's new values may stay disconnected before it counts as gone for the automatic rollback (docs/rollouts.md)",
  },
  'Ofrep:AllowedOrigins': {
    kind: { type: 'list', default: [] },
    docDefault: 'none',
    doc: 'browser origins (`https://app.example.com`) that may call the OpenFeature evaluation endpoints under `/ofrep/v1` from a page (CORS, e.g. with `@openfeature/ofrep-web-provider`); none by default. Only `/ofrep/v1` answers them: the management API never grants CORS (docs/openfeature.md)',
  },
  'Logging:Level': {
    kind: { type: 'choice', default: 'info', values: LOG_LEVELS },
    doc: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`',
    essential: true,
  },
} as const satisfies Readonly<Record<string, KeyDefinition>>;

export type ConfigKeyName = keyof typeof CONFIG_KEYS;

/** The parsed type of a key's value. */
export type ValueOf<K extends ConfigKeyName> = (typeof CONFIG_KEYS)[K]['kind'] extends {
  type: 'integer' | 'positive-number';
}
  ? number
  : (typeof CONFIG_KEYS)[K]['kind'] extends { type: 'boolean' }
    ? boolean
    : (typeof CONFIG_KEYS)[K]['kind'] extends { type: 'list' }
      ? readonly string[]
      : (typeof CONFIG_KEYS)[K]['kind'] extends { type: 'optional-text' }
        ? string | null
        : (typeof CONFIG_KEYS)[K]['kind'] extends { type: 'choice'; values: readonly (infer V)[] }
          ? V
          : string;

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createSecureContext } from 'node:tls';

import type {
  AppConfig,
  AuthenticationConfig,
  AuthProviderName,
  AuthorizationConfig,
  DatabaseConfig,
  JwtAuthConfig,
  OpenIdAuthConfig,
  SamlAuthConfig,
  ServerConfig,
  SessionConfig,
  TlsConfig,
} from './app-config.js';
import { ConfigError } from './config-error.js';
import { ConfigReader } from './config-reader.js';
import {
  errorCode,
  parseCommandLine,
  readEnvironmentSource,
  readJsonSource,
  type ConfigSource,
  type Problems,
} from './config-sources.js';
import { ConfigValues } from './config-values.js';

export { ConfigError } from './config-error.js';

export interface LoadConfigOptions {
  /** Command-line arguments after the script name (`process.argv.slice(2)`). */
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Folder of `appsettings.json`, and the base of relative paths in the configuration. */
  readonly cwd: string;
}

/**
 * Reads, merges and validates the configuration (docs/configuration.md). Sources, later wins:
 * built-in defaults < appsettings.json (or `--config PATH`) < appsettings.{APP_ENV}.json <
 * environment variables `Section__Key` < command-line `--Section:Key=value`.
 * Throws one ConfigError listing every problem; otherwise returns a deeply frozen AppConfig.
 */
export function loadConfig(options: LoadConfigOptions): AppConfig {
  // Every source is read even when an earlier one has a problem, so one run names everything wrong.
  const sourceIssues: string[] = [];
  const problem = (message: string): void => void sourceIssues.push(message);
  const warnings: string[] = [];
  const warning = (message: string): void => void warnings.push(message);
  const environment = environmentName(options.env, problem);
  const commandLine = parseCommandLine(options.argv, problem);
  const explicitFile = commandLine.configPath !== undefined;
  const basePath = resolve(options.cwd, commandLine.configPath ?? 'appsettings.json');

  const sources: ConfigSource[] = [];
  const baseFile = readJsonSource(basePath, { required: explicitFile }, problem, warning);
  if (baseFile !== undefined) sources.push(baseFile);
  const environmentFile = readJsonSource(
    join(dirname(basePath), `appsettings.${environment}.json`),
    { required: false },
    problem,
    warning,
  );
  if (environmentFile !== undefined) sources.push(environmentFile);
  sources.push(readEnvironmentSource(options.env, warning), commandLine.source);

  const values = new ConfigValues(sources);
  const reader = new ConfigReader(values);
  for (const issue of [...sourceIssues, ...values.findStructureIssues()]) reader.problem(issue);

  const config: AppConfig = {
    environment,
    server: readServer(reader, options.cwd),
    database: readDatabase(reader, options.cwd),
    authentication: readAuthentication(reader),
    authorization: readAuthorization(reader),
    session: readSession(reader),
    grpc: {
      requireAuthentication: reader.read('Grpc:RequireAuthentication'),
      keepAliveSeconds: reader.read('Grpc:KeepAliveSeconds'),
      maxReceiveMessageBytes: reader.read('Grpc:MaxReceiveMessageBytes'),
      getConfigLayout: reader.read('Grpc:GetConfigLayout'),
    },
    versions: {
      maxEntries: reader.read('Versions:MaxEntries'),
      maxBytes: reader.read('Versions:MaxBytes'),
      requiredApprovals: reader.read('Versions:RequiredApprovals'),
    },
    tokens: { maxLifetimeDays: reader.read('Authentication:Tokens:MaxLifetimeDays') },
    webhooks: {
      allowPrivateNetworks: reader.read('Webhooks:AllowPrivateNetworks'),
      retrySchedule: readRetrySchedule(reader),
    },
    validation: { timeoutSeconds: reader.read('Validation:TimeoutSeconds') },
    rollouts: {
      tickMilliseconds: reader.read('Rollouts:TickMilliseconds'),
      disconnectGraceSeconds: reader.read('Rollouts:DisconnectGraceSeconds'),
    },
    ofrep: { allowedOrigins: readAllowedOrigins(reader) },
    secrets: readSecrets(reader, options.cwd),
    logging: { level: reader.read('Logging:Level') },
    warnings,
  };
  if (reader.issues.length > 0) throw new ConfigError(reader.issues, warnings);
  return deepFreeze(config);
}

/** Webhooks:RetrySchedule: seconds, each a positive number (fractions allowed, for tests). */
function readRetrySchedule(reader: ConfigReader): number[] {
  const items = reader.read('Webhooks:RetrySchedule');
  const seconds = items.map(Number);
  if (seconds.some((s) => !Number.isFinite(s) || s <= 0 || s > 7 * 24 * 3600)) {
    reader.problem(
      `Webhooks:RetrySchedule must list seconds, each a positive number up to 604800 (got ${JSON.stringify(items)})`,
    );
    return [];
  }
  return seconds;
}

/** Ofrep:AllowedOrigins: each an origin as browsers send it (`https://app.example.com`, no path). */
function readAllowedOrigins(reader: ConfigReader): string[] {
  const items = reader.read('Ofrep:AllowedOrigins');
  const bad = items.filter((item) => {
    try {
      return new URL(item).origin !== item;
    } catch {
      return true;
    }
  });
  if (bad.length > 0) {
    reader.problem(
      `Ofrep:AllowedOrigins must list origins such as https://app.example.com (scheme, host and port only; got ${JSON.stringify(bad)})`,
    );
    return [];
  }
  return [...items];
}

function readSecrets(reader: ConfigReader, cwd: string): AppConfig['secrets'] {
  const file = reader.read('Secrets:MasterKeyFile');
  return {
    masterKeyFile: file === null ? null : resolve(cwd, file),
    previousKeyFiles: reader.read('Secrets:PreviousKeyFiles').map((f) => resolve(cwd, f)),
  };
}

function environmentName(env: Readonly<Record<string, string | undefined>>, problem: Problems): string {
  const name = env['APP_ENV']?.trim() ?? '';
  if (name === '') return 'Production';
  // The name becomes part of a file name; a path in it would read settings from elsewhere.
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name)) {
    problem(`APP_ENV must be a plain name such as Production or Development (got ${JSON.stringify(name)})`);
    return 'Production';
  }
  return name;
}

function readServer(reader: ConfigReader, cwd: string): ServerConfig {
  return {
    port: reader.read('Server:Port'),
    host: reader.read('Server:Host'),
    tls: readTls(reader, cwd),
    shutdownTimeoutSeconds: reader.read('Server:ShutdownTimeoutSeconds'),
    requestTimeoutSeconds: reader.read('Server:RequestTimeoutSeconds'),
    maxConnections: reader.read('Server:MaxConnections'),
    maxConnectionsPerAddress: reader.read('Server:MaxConnectionsPerAddress'),
    maxStreams: reader.read('Server:MaxStreams'),
    maxStreamsPerConnection: reader.read('Server:MaxStreamsPerConnection'),
    maxStreamsPerAddress: reader.read('Server:MaxStreamsPerAddress'),
    idleTimeoutSeconds: reader.read('Server:IdleTimeoutSeconds'),
    trustProxy: reader.read('Server:TrustProxy'),
    consoleDir: readConsoleDir(reader, cwd),
    primaryUrl: readPrimaryUrl(reader),
  };
}

function readPrimaryUrl(reader: ConfigReader): string | null {
  const value = readHttpUrl(reader, 'Server:PrimaryUrl');
  if (value === null) return null;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url && (url.search || url.hash || url.username || url.password)) {
    reader.problem(
      `Server:PrimaryUrl must be the address of the primary region without a query, fragment or user (got ${JSON.stringify(value)})`,
    );
  }
  return value.replace(/\/+$/, '');
}

function readConsoleDir(reader: ConfigReader, cwd: string): string | null {
  const value = reader.read('Server:ConsoleDir');
  if (value === null) return null;
  const dir = resolve(cwd, value);
  if (!existsSync(join(dir, 'index.html'))) {
    reader.problem(`Server:ConsoleDir must name a built web console (a folder with index.html): ${dir}`);
  }
  return dir;
}

function readTls(reader: ConfigReader, cwd: string): TlsConfig | null {
  const certKey = 'Server:Tls:CertificatePath' as const;
  const keyKey = 'Server:Tls:KeyPath' as const;
  const certPath = reader.read(certKey);
  const keyPath = reader.read(keyKey);
  if (certPath === null && keyPath === null) return null;
  if (certPath === null) {
    reader.problem(`${certKey} is required when ${keyKey} is set`);
    return null;
  }
  if (keyPath === null) {
    reader.problem(`${keyKey} is required when ${certKey} is set`);
    return null;
  }
  const certificatePath = resolve(cwd, certPath);
  const keyFilePath = resolve(cwd, keyPath);
  const cert = readPem(reader, certKey, certificatePath);
  const key = readPem(reader, keyKey, keyFilePath);
  if (cert === undefined || key === undefined) return null;
  try {
    // Catches a key that does not belong to the certificate now rather than at the first handshake.
    createSecureContext({ cert, key });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    reader.problem(`${certKey} and ${keyKey} are not a matching certificate and private key (${reason})`);
    return null;
  }
  return { certificatePath, keyPath: keyFilePath, cert, key };
}

function readPem(reader: ConfigReader, key: string, path: string): Buffer | undefined {
  let contents: Buffer;
  try {
    contents = readFileSync(path);
  } catch (error) {
    reader.problem(`${key} names a file that cannot be read: ${path} (${errorCode(error) ?? 'unknown error'})`);
    return undefined;
  }
  if (!contents.includes('-----BEGIN')) {
    reader.problem(`${key} must name a PEM file, but ${path} has no "-----BEGIN" line`);
    return undefined;
  }
  return contents;
}

function readDatabase(reader: ConfigReader, cwd: string): DatabaseConfig {
  // The URL usually carries a password, so messages show its scheme only.
  const url = reader.read('Database:Url');
  if (url !== null) {
    const scheme = URL.canParse(url) ? new URL(url).protocol : undefined;
    if (scheme !== 'postgres:' && scheme !== 'postgresql:') {
      const got = scheme === undefined ? 'a value that is not a URL' : `scheme ${JSON.stringify(scheme)}`;
      reader.problem(`Database:Url must be empty or a postgres:// or postgresql:// URL (got ${got})`);
    }
  }
  const dataDir = reader.read('Database:DataDir');
  return {
    url: url?.trim() ?? null,
    dataDir: dataDir.toLowerCase() === 'memory://' ? 'memory://' : resolve(cwd, dataDir),
    followIntervalMs: reader.read('Database:FollowIntervalMilliseconds'),
    roleCheckIntervalMs: reader.read('Database:RoleCheckIntervalMilliseconds'),
    maxFollowerLagSeconds: reader.read('Database:MaxFollowerLagSeconds'),
  };
}

function readAuthentication(reader: ConfigReader): AuthenticationConfig {
  const issuesBefore = reader.issues.length;
  const provider: AuthProviderName = reader.read('Authentication:Provider');
  // An unknown provider is the problem: the default's settings are not reported as missing too.
  const checkProvider = reader.issues.length === issuesBefore;
  return {
    provider,
    emailClaimType: reader.read('Authentication:EmailClaimType'),
    roleClaimType: reader.read('Authentication:RoleClaimType'),
    idClaimType: reader.read('Authentication:IdClaimType'),
    local: {
      defaultAdminUsername: reader.read('Authentication:Local:DefaultAdminUsername'),
      defaultAdminPassword: reader.read('Authentication:Local:DefaultAdminPassword'),
      signInLimits: {
        perUserAndAddress: reader.read('Authentication:Local:SignInLimits:PerUserAndAddress'),
        perAddress: reader.read('Authentication:Local:SignInLimits:PerAddress'),
        perUser: reader.read('Authentication:Local:SignInLimits:PerUser'),
        windowMinutes: reader.read('Authentication:Local:SignInLimits:WindowMinutes'),
      },
    },
    // Settings of inactive providers are neither checked nor returned, so a file can keep
    // several providers' settings side by side and switch with Authentication:Provider alone.
    openId: checkProvider && provider === 'OpenId' ? readOpenId(reader) : null,
    jwt: checkProvider && provider === 'Jwt' ? readJwt(reader) : null,
    saml: checkProvider && provider === 'Saml' ? readSaml(reader) : null,
  };
}

function readOpenId(reader: ConfigReader): OpenIdAuthConfig {
  const { url: authority, requireHttpsMetadata } = readMetadataUrl(
    reader,
    'Authentication:OpenId:Authority',
    'Authentication:OpenId:RequireHttpsMetadata',
  );
  return {
    authority,
    clientId: reader.read('Authentication:OpenId:ClientId'),
    clientSecret: reader.read('Authentication:OpenId:ClientSecret'),
    requireHttpsMetadata,
    responseType: reader.read('Authentication:OpenId:ResponseType'),
    scope: reader.read('Authentication:OpenId:Scope'),
  };
}

function readJwt(reader: ConfigReader): JwtAuthConfig {
  const { url: authority, requireHttpsMetadata } = readMetadataUrl(
    reader,
    'Authentication:Jwt:Authority',
    'Authentication:Jwt:RequireHttpsMetadata',
  );
  return {
    authority,
    audience: reader.read('Authentication:Jwt:Audience'),
    requireHttpsMetadata,
    tokenValidationParameters: {
      validateAudience: reader.read('Authentication:Jwt:TokenValidationParameters:ValidateAudience'),
      validateIssuer: reader.read('Authentication:Jwt:TokenValidationParameters:ValidateIssuer'),
    },
    clientId: reader.read('Authentication:Jwt:ClientId'),
    authorizeUrl: readHttpUrl(reader, 'Authentication:Jwt:AuthorizeUrl'),
    tokenUrl: readHttpUrl(reader, 'Authentication:Jwt:TokenUrl'),
    scopes: reader.read('Authentication:Jwt:Scopes'),
  };
}

function readSaml(reader: ConfigReader): SamlAuthConfig {
  const section = 'Authentication:Saml';
  const spOptionsEntityId = reader.read('Authentication:Saml:SpOptionsEntityId');
  const identityProviderEntityId = reader.read('Authentication:Saml:IdentityProviderEntityId');
  const { url: identityProviderMetadataUrl, requireHttpsMetadata } = readMetadataUrl(
    reader,
    'Authentication:Saml:IdentityProviderMetadataUrl',
    'Authentication:Saml:RequireHttpsMetadata',
  );
  const modulePathKey = `${section}:SpOptionsModulePath`;
  const givenModulePath = reader.read('Authentication:Saml:SpOptionsModulePath');
  // Endpoints are registered as `${modulePath}/Acs`, so a trailing slash would double up.
  const spOptionsModulePath = givenModulePath.replace(/\/+$/, '');
  if (!givenModulePath.startsWith('/') || spOptionsModulePath === '') {
    reader.problem(
      `${modulePathKey} must be a path starting with "/", such as /saml2 (got ${JSON.stringify(givenModulePath)})`,
    );
  }
  return {
    spOptionsEntityId,
    spOptionsModulePath,
    identityProviderEntityId,
    identityProviderMetadataUrl,
    requireHttpsMetadata,
  };
}

function readAuthorization(reader: ConfigReader): AuthorizationConfig {
  return {
    policies: {
      canAll: reader.read('Authorization:Policies:canAll'),
      canChange: reader.read('Authorization:Policies:canChange'),
      canReveal: reader.read('Authorization:Policies:canReveal'),
    },
    roleClaimTypes: reader.read('Authorization:RoleClaimTypes'),
  };
}

function readSession(reader: ConfigReader): SessionConfig {
  const secret = reader.read('Session:Secret');
  if (secret !== null && secret.length < 32) {
    reader.problem(`Session:Secret must be at least 32 characters long (got ${secret.length})`);
  }
  return {
    idleTimeoutMinutes: reader.read('Session:IdleTimeoutMinutes'),
    secret,
  };
}

/**
 * A sign-in provider's metadata address with its RequireHttpsMetadata: an http(s) URL, https only
 * while the flag is on. Empty means unset, which the key's own read has reported already.
 */
function readMetadataUrl(
  reader: ConfigReader,
  urlKey:
    | 'Authentication:OpenId:Authority'
    | 'Authentication:Jwt:Authority'
    | 'Authentication:Saml:IdentityProviderMetadataUrl',
  httpsFlagKey: `Authentication:${'OpenId' | 'Jwt' | 'Saml'}:RequireHttpsMetadata`,
): { url: string; requireHttpsMetadata: boolean } {
  const url = reader.read(urlKey);
  const requireHttpsMetadata = reader.read(httpsFlagKey);
  if (url !== '') checkHttpUrl(reader, urlKey, url, requireHttpsMetadata ? httpsFlagKey : null);
  return { url, requireHttpsMetadata };
}

/** An optional http:// or https:// address (null when unset). */
function readHttpUrl(
  reader: ConfigReader,
  key: 'Server:PrimaryUrl' | 'Authentication:Jwt:AuthorizeUrl' | 'Authentication:Jwt:TokenUrl',
): string | null {
  const value = reader.read(key);
  if (value !== null) checkHttpUrl(reader, key, value, null);
  return value;
}

/** `httpsFlagKey` is the RequireHttpsMetadata key when it is on, or null when http is allowed. */
function checkHttpUrl(reader: ConfigReader, key: string, value: string, httpsFlagKey: string | null): void {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    reader.problem(`${key} must be an absolute http:// or https:// URL (got ${JSON.stringify(value)})`);
  } else if (url.protocol === 'http:' && httpsFlagKey !== null) {
    reader.problem(`${key} must be an https:// URL when ${httpsFlagKey} is true (got ${JSON.stringify(value)})`);
  }
}

/** Buffers cannot be frozen (V8 refuses typed arrays with elements), so they are left as they are. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !ArrayBuffer.isView(value) && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze<unknown>(child);
    Object.freeze(value);
  }
  return value;
}

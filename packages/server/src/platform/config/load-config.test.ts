import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { AppConfig } from './app-config.js';
import { ConfigError, loadConfig } from './load-config.js';

// A self-signed P-256 certificate for localhost (valid until 2126) with its key, and an unrelated key.
const testCert = `-----BEGIN CERTIFICATE-----
MIIBfzCCASWgAwIBAgIUd6OAVCB3Bg0zkdee/5nmfrT6djQwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyMTEzMDEyMVoYDzIxMjYxMDI4
MTMwMTIxWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASSrvB3h2aIz/7UcdsgtgHYPe9pSLG/+QQEzazeV7Dmu7BV4r/xNkUr
0GXgK7eCxZ8QiJLP5+HVrCcp2WwPBeABo1MwUTAdBgNVHQ4EFgQUXbhEAp/DPMtv
b+4YFfFROW6v024wHwYDVR0jBBgwFoAUXbhEAp/DPMtvb+4YFfFROW6v024wDwYD
VR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiBSjcVrUfrH0N9YHXVehhyp
epT9o53D3b6HB28J7SJhUgIhAIWijpI/JhcgnRfHHnuwzbrAwZ7bEO1Pqb6JZ/pt
ZJeJ
-----END CERTIFICATE-----
`;
const testKey = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgJTyQoTH2ghzCThJ5
Kh2kqc0dFAnN519DVZ7kaaz8D8OhRANCAASSrvB3h2aIz/7UcdsgtgHYPe9pSLG/
+QQEzazeV7Dmu7BV4r/xNkUr0GXgK7eCxZ8QiJLP5+HVrCcp2WwPBeAB
-----END PRIVATE KEY-----
`;
const otherKey = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgujA9heXgU+BVzXq5
NZbzeBKpTQ09TxKLXNnBIshnuaWhRANCAAQNoIaI1hn+u6MAEx0bVX25UfFQW78/
eP55jO3z/qYz3/ePP6DfBFiO4qf1UrRKl5HF0mdZYRfqxTqfMCdjUa+A
-----END PRIVATE KEY-----
`;

const validSaml = {
  SpOptionsEntityId: 'https://config.example.com/saml2/Metadata',
  IdentityProviderEntityId: 'https://idp.example.com/entity',
  IdentityProviderMetadataUrl: 'https://idp.example.com/metadata',
};

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'load-config-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function writeJson(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function load(options: { argv?: readonly string[]; env?: Record<string, string | undefined> } = {}): AppConfig {
  return loadConfig({ argv: options.argv ?? [], env: options.env ?? {}, cwd: dir });
}

/** Loads with the Local provider so that tests about other keys need no provider settings. */
function loadLocal(options: { argv?: readonly string[]; env?: Record<string, string | undefined> } = {}): AppConfig {
  return load({ ...options, env: { Authentication__Provider: 'Local', ...options.env } });
}

function errorOf(action: () => unknown): ConfigError {
  try {
    action();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError, but loading succeeded');
}

describe('loadConfig defaults', () => {
  it('uses the built-in defaults when there are no files, variables or arguments', () => {
    const config = load({ env: { Authentication__Saml__SpOptionsEntityId: 'urn:sp', ...samlEnv() } });
    expect(config.environment).toBe('Production');
    expect(config.server).toEqual({
      port: 8080,
      host: '0.0.0.0',
      tls: null,
      shutdownTimeoutSeconds: 10,
      requestTimeoutSeconds: 30,
      maxConnections: 0,
      maxConnectionsPerAddress: 0,
      maxStreams: 50_000,
      maxStreamsPerConnection: 100,
      maxStreamsPerAddress: 2000,
      idleTimeoutSeconds: 120,
      trustProxy: [],
      consoleDir: null,
      primaryUrl: null,
    });
    expect(config.database).toEqual({
      url: null,
      dataDir: join(dir, 'data'),
      followIntervalMs: 200,
      roleCheckIntervalMs: 1000,
      maxFollowerLagSeconds: 30,
    });
    expect(config.authentication.provider).toBe('Saml');
    expect(config.authentication.emailClaimType).toBe(
      'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
    );
    expect(config.authentication.roleClaimType).toBe('http://schemas.microsoft.com/ws/2008/06/identity/claims/role');
    expect(config.authentication.idClaimType).toBe(
      'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/nameidentifier',
    );
    expect(config.authentication.local).toEqual({
      defaultAdminUsername: 'admin',
      defaultAdminPassword: 'admin',
      signInLimits: { perUserAndAddress: 10, perAddress: 50, perUser: 50, windowMinutes: 15 },
    });
    expect(config.authentication.saml).toEqual({
      spOptionsEntityId: 'urn:sp',
      spOptionsModulePath: '/saml2',
      identityProviderEntityId: validSaml.IdentityProviderEntityId,
      identityProviderMetadataUrl: validSaml.IdentityProviderMetadataUrl,
      requireHttpsMetadata: true,
    });
    expect(config.authentication.openId).toBeNull();
    expect(config.authentication.jwt).toBeNull();
    expect(config.authorization).toEqual({
      policies: { canAll: ['admin'], canChange: ['developer'], canReveal: ['admin'] },
      roleClaimTypes: ['role', 'roles', 'groups', 'name'],
    });
    expect(config.session).toEqual({ idleTimeoutMinutes: 480, secret: null });
    expect(config.secrets).toEqual({ masterKeyFile: null, previousKeyFiles: [] });
    expect(config.grpc).toEqual({
      requireAuthentication: true,
      keepAliveSeconds: 30,
      maxReceiveMessageBytes: 4 * 1024 * 1024,
      getConfigLayout: 'Spec',
    });
    expect(config.validation).toEqual({ timeoutSeconds: 5 });
    expect(config.logging).toEqual({ level: 'info' });
  });

  it('defaults to the Saml provider and names its missing required keys', () => {
    const error = errorOf(() => load());
    expect(error.message).toContain('Invalid configuration: ');
    expect(error.message).toContain(
      'Authentication:Saml:SpOptionsEntityId is required when Authentication:Provider is Saml',
    );
    expect(error.message).toContain('Authentication:Saml:IdentityProviderEntityId is required');
    expect(error.message).toContain('Authentication:Saml:IdentityProviderMetadataUrl is required');
    expect(error.issues).toHaveLength(3);
  });

  it('takes the environment name from APP_ENV', () => {
    expect(loadLocal({ env: { APP_ENV: 'Development' } }).environment).toBe('Development');
  });

  it('keeps memory:// as the data folder and resolves other folders against the working directory', () => {
    expect(loadLocal({ env: { Database__DataDir: 'memory://' } }).database.dataDir).toBe('memory://');
    expect(loadLocal({ env: { Database__DataDir: 'store/db' } }).database.dataDir).toBe(join(dir, 'store', 'db'));
  });
});

function samlEnv(): Record<string, string> {
  return {
    Authentication__Saml__IdentityProviderEntityId: validSaml.IdentityProviderEntityId,
    Authentication__Saml__IdentityProviderMetadataUrl: validSaml.IdentityProviderMetadataUrl,
  };
}

describe('loadConfig regions', () => {
  it("reads a follower's primary URL without its trailing slash, and the follower settings", () => {
    const config = loadLocal({
      argv: [
        '--Server:PrimaryUrl=https://config.eu.example.com/',
        '--Database:FollowIntervalMilliseconds=50',
        '--Database:MaxFollowerLagSeconds=2.5',
        '--Database:RoleCheckIntervalMilliseconds=250',
      ],
    });
    expect(config.server.primaryUrl).toBe('https://config.eu.example.com');
    expect(config.database).toMatchObject({
      followIntervalMs: 50,
      maxFollowerLagSeconds: 2.5,
      roleCheckIntervalMs: 250,
    });
  });

  it('rejects a primary URL that is not an http(s) address, or one with a query or a user', () => {
    for (const value of [
      'config.eu.example.com',
      'ftp://config.eu',
      'https://config.eu/?a=1',
      'https://u:p@config.eu',
    ]) {
      expect(errorOf(() => loadLocal({ argv: [`--Server:PrimaryUrl=${value}`] })).message).toContain(
        'Server:PrimaryUrl must be',
      );
    }
  });

  it('rejects a follow interval outside 10 ms to 60 s, naming the key', () => {
    expect(errorOf(() => loadLocal({ argv: ['--Database:FollowIntervalMilliseconds=5'] })).message).toContain(
      'Database:FollowIntervalMilliseconds',
    );
  });
});

describe('loadConfig sources', () => {
  it('lets each source override the one before: defaults < appsettings.json < appsettings.{Env}.json < env < command line', () => {
    const env = { Authentication__Provider: 'Local', APP_ENV: 'Staging' };
    expect(load({ env }).server.port).toBe(8080);

    writeJson('appsettings.json', { Server: { Port: 1001 } });
    expect(load({ env }).server.port).toBe(1001);

    writeJson('appsettings.Staging.json', { Server: { Port: 1002 } });
    expect(load({ env }).server.port).toBe(1002);

    expect(load({ env: { ...env, Server__Port: '1003' } }).server.port).toBe(1003);

    expect(load({ env: { ...env, Server__Port: '1003' }, argv: ['--Server:Port=1004'] }).server.port).toBe(1004);
  });

  it('reads appsettings.{Env}.json for the environment named by APP_ENV only', () => {
    writeJson('appsettings.json', { Authentication: { Provider: 'Local' } });
    writeJson('appsettings.Production.json', { Server: { Host: 'production.local' } });
    writeJson('appsettings.Development.json', { Server: { Host: 'development.local' } });
    expect(load().server.host).toBe('production.local');
    expect(load({ env: { APP_ENV: 'Development' } }).server.host).toBe('development.local');
  });

  it('reads the base file named by --config PATH, and the environment file beside it', () => {
    writeJson('appsettings.json', { Server: { Port: 1111 } });
    mkdirSync(join(dir, 'etc'));
    writeJson('etc/custom.json', { Authentication: { Provider: 'Local' }, Server: { Port: 2222 } });
    writeJson('etc/appsettings.Production.json', { Server: { Host: 'from-etc' } });

    const config = load({ argv: ['--config', 'etc/custom.json'] });
    expect(config.server.port).toBe(2222);
    expect(config.server.host).toBe('from-etc');
    expect(load({ argv: [`--config=${join(dir, 'etc', 'custom.json')}`] }).server.port).toBe(2222);
  });

  it('rejects a --config file that does not exist, naming the file', () => {
    const error = errorOf(() => load({ argv: ['--config', 'missing.json'] }));
    expect(error.message).toContain(join(dir, 'missing.json'));
  });

  it('rejects a file with invalid JSON, naming the file', () => {
    const path = writeJson('appsettings.json', '{ "Server": { "Port": 1 ');
    const error = errorOf(() => load());
    expect(error.message).toContain(path);
    expect(error.message).toContain('not valid JSON');
  });

  it('accepts the --Section:Key value form on the command line', () => {
    expect(loadLocal({ argv: ['--Server:Host', 'example.local'] }).server.host).toBe('example.local');
  });

  it('rejects stray command-line arguments', () => {
    expect(errorOf(() => loadLocal({ argv: ['serve'] })).message).toContain('"serve"');
  });

  it('names every problem of every source at once, even when a file cannot be read', () => {
    writeJson('appsettings.json', '{ "Server": ');
    const error = errorOf(() =>
      loadLocal({
        argv: ['--Server:Port=eighty', 'stray', '--Logging:Level'],
        env: { APP_ENV: '../etc', Session__Secret: 'short', Grpc__KeepAliveSeconds: '-1' },
      }),
    );
    expect(error.issues).toEqual(
      expect.arrayContaining([
        expect.stringContaining('not valid JSON'),
        expect.stringContaining('APP_ENV'),
        expect.stringContaining('"stray"'),
        expect.stringContaining('--Logging:Level needs a value'),
        expect.stringContaining('Server:Port must be'),
        expect.stringContaining('Session:Secret must be at least 32'),
        expect.stringContaining('Grpc:KeepAliveSeconds must be a positive number'),
      ]),
    );
    expect(error.issues).toHaveLength(7);
  });

  it('resolves Server:ConsoleDir against the working directory and wants a built console there', () => {
    expect(errorOf(() => loadLocal({ argv: ['--Server:ConsoleDir=console'] })).issues).toEqual([
      `Server:ConsoleDir must name a built web console (a folder with index.html): ${join(dir, 'console')}`,
    ]);
    mkdirSync(join(dir, 'console'));
    writeFileSync(join(dir, 'console', 'index.html'), '<!doctype html>');
    expect(loadLocal({ argv: ['--Server:ConsoleDir=console'] }).server.consoleDir).toBe(join(dir, 'console'));
  });

  it('ignores top-level sections of other tools in files', () => {
    writeJson('appsettings.json', { Authentication: { Provider: 'Local' }, Kestrel: { Endpoints: {} }, Other: 1 });
    expect(load().authentication.provider).toBe('Local');
  });

  it('ignores environment variables outside the known sections', () => {
    const config = loadLocal({
      env: { PATH: '/usr/bin', NODE__OPTIONS: 'x', Kestrel__Port: 'abc', Foo__Server__Port: '1', PORT: '1' },
    });
    expect(config.server.port).toBe(8080);
  });
});

describe('loadConfig arrays', () => {
  it('reads arrays from JSON', () => {
    writeJson('appsettings.json', {
      Authentication: { Provider: 'Local' },
      Authorization: { Policies: { canAll: ['owner', 'admin'] }, RoleClaimTypes: ['groups'] },
    });
    const config = load();
    expect(config.authorization.policies.canAll).toEqual(['owner', 'admin']);
    expect(config.authorization.policies.canChange).toEqual(['developer']);
    expect(config.authorization.roleClaimTypes).toEqual(['groups']);
  });

  it('reads arrays from indexed environment variables and command-line keys', () => {
    const config = loadLocal({
      env: { Authorization__Policies__canAll__0: 'admin', Authorization__Policies__canAll__1: 'ops' },
      argv: ['--Authorization:Policies:canChange:0=dev', '--Authorization:Policies:canChange:1=qa'],
    });
    expect(config.authorization.policies.canAll).toEqual(['admin', 'ops']);
    expect(config.authorization.policies.canChange).toEqual(['dev', 'qa']);
  });

  it('merges arrays across sources by index', () => {
    writeJson('appsettings.json', { Authorization: { Policies: { canAll: ['a', 'b', 'c'] } } });
    writeJson('appsettings.Production.json', { Authorization: { Policies: { canAll: ['A'] } } });
    const config = loadLocal({
      env: { Authorization__Policies__canAll__1: 'B' },
      argv: ['--Authorization:Policies:canAll:3=d'],
    });
    expect(config.authorization.policies.canAll).toEqual(['A', 'B', 'c', 'd']);
  });

  it('lets an empty JSON array or a comma-separated value replace the whole array', () => {
    writeJson('appsettings.json', { Authorization: { Policies: { canAll: ['a', 'b'], canChange: [] } } });
    const config = loadLocal({ env: { Authorization__RoleClaimTypes: 'role, groups' } });
    expect(config.authorization.policies.canChange).toEqual([]);
    expect(config.authorization.roleClaimTypes).toEqual(['role', 'groups']);
    expect(loadLocal({ env: { Authorization__Policies__canAll: 'x' } }).authorization.policies.canAll).toEqual(['x']);
  });

  it('rejects a non-numeric index under an array key, naming the key', () => {
    const error = errorOf(() => loadLocal({ env: { Authorization__Policies__canAll__first: 'x' } }));
    expect(error.message).toContain('unknown key Authorization:Policies:canAll:first');
  });
});

describe('loadConfig key case', () => {
  it('matches keys in files ignoring case', () => {
    writeJson('appsettings.json', { server: { PORT: 3000, tls: null }, AUTHENTICATION: { provider: 'local' } });
    const config = load();
    expect(config.server.port).toBe(3000);
    expect(config.authentication.provider).toBe('Local');
  });

  it('matches keys in environment variables and on the command line ignoring case', () => {
    expect(loadLocal({ env: { SERVER__PORT: '3001' } }).server.port).toBe(3001);
    expect(loadLocal({ env: { server__port: '3002' } }).server.port).toBe(3002);
    expect(loadLocal({ argv: ['--server:port=3003'] }).server.port).toBe(3003);
    expect(loadLocal({ argv: ['--SERVER:PORT=3004'] }).server.port).toBe(3004);
    expect(loadLocal({ env: { authorization__policies__CANALL__0: 'root' } }).authorization.policies.canAll).toEqual([
      'root',
    ]);
  });

  it('treats differently cased keys from different sources as the same key', () => {
    writeJson('appsettings.json', { SERVER: { port: 1 }, Authentication: { Provider: 'Local' } });
    expect(load({ argv: ['--Server:Port=2'] }).server.port).toBe(2);
  });

  it('returns the provider and log level in canonical casing', () => {
    const config = load({ env: { AUTHENTICATION__PROVIDER: 'oPeNiD', Logging__Level: 'DEBUG', ...openIdEnv() } });
    expect(config.authentication.provider).toBe('OpenId');
    expect(config.logging.level).toBe('debug');
  });
});

function openIdEnv(): Record<string, string> {
  return {
    Authentication__OpenId__Authority: 'https://idp.example.com/realms/main',
    Authentication__OpenId__ClientId: 'config-service',
    Authentication__OpenId__ClientSecret: 'not-a-real-secret',
  };
}

describe('loadConfig providers', () => {
  it('returns only the active provider section, with its defaults', () => {
    writeJson('appsettings.json', { Authentication: { Saml: { SpOptionsEntityId: 'ignored' } } });
    const config = load({ env: { Authentication__Provider: 'OpenId', ...openIdEnv() } });
    expect(config.authentication.openId).toEqual({
      authority: 'https://idp.example.com/realms/main',
      clientId: 'config-service',
      clientSecret: 'not-a-real-secret',
      requireHttpsMetadata: true,
      responseType: 'code',
      scope: ['openid', 'profile', 'email'],
    });
    expect(config.authentication.saml).toBeNull();
    expect(config.authentication.jwt).toBeNull();
    expect(config.authentication.local.defaultAdminUsername).toBe('admin');
  });

  it('reads the Jwt provider with its defaults', () => {
    const config = load({
      env: {
        Authentication__Provider: 'jwt',
        Authentication__Jwt__Authority: 'https://idp.example.com',
        Authentication__Jwt__Audience: 'config-api',
        Authentication__Jwt__TokenValidationParameters__ValidateIssuer: 'FALSE',
        Authentication__Jwt__Scopes: 'openid groups',
      },
    });
    expect(config.authentication.jwt).toEqual({
      authority: 'https://idp.example.com',
      audience: 'config-api',
      requireHttpsMetadata: true,
      tokenValidationParameters: { validateAudience: true, validateIssuer: false },
      clientId: null,
      authorizeUrl: null,
      tokenUrl: null,
      scopes: 'openid groups',
    });
  });

  it('rejects an unknown provider, naming the key and the allowed values', () => {
    const error = errorOf(() => load({ env: { Authentication__Provider: 'Kerberos' } }));
    expect(error.message).toContain('Authentication:Provider');
    expect(error.message).toContain('Local, OpenId, Jwt, Saml');
    expect(error.message).toContain('"Kerberos"');
  });

  it('rejects a missing required OpenId key, naming the key', () => {
    const env: Record<string, string | undefined> = {
      Authentication__Provider: 'OpenId',
      ...openIdEnv(),
      Authentication__OpenId__ClientId: undefined,
    };
    const error = errorOf(() => load({ env }));
    expect(error.message).toBe(
      'Invalid configuration: Authentication:OpenId:ClientId is required when Authentication:Provider is OpenId',
    );
  });

  it('rejects a missing required Jwt key, naming the key', () => {
    const error = errorOf(() =>
      load({ env: { Authentication__Provider: 'Jwt', Authentication__Jwt__Authority: 'https://idp.example.com' } }),
    );
    expect(error.message).toContain('Authentication:Jwt:Audience is required when Authentication:Provider is Jwt');
  });

  it('rejects an http Authority unless RequireHttpsMetadata is false', () => {
    const env = {
      Authentication__Provider: 'OpenId',
      ...openIdEnv(),
      Authentication__OpenId__Authority: 'http://idp.local',
    };
    const error = errorOf(() => load({ env }));
    expect(error.message).toContain('Authentication:OpenId:Authority must be an https:// URL');
    const config = load({ env: { ...env, Authentication__OpenId__RequireHttpsMetadata: 'false' } });
    expect(config.authentication.openId?.authority).toBe('http://idp.local');
  });

  it('rejects an Authority that is not an absolute http(s) URL', () => {
    const env = { Authentication__Provider: 'OpenId', ...openIdEnv(), Authentication__OpenId__Authority: 'idp.local' };
    expect(errorOf(() => load({ env })).message).toContain('Authentication:OpenId:Authority must be an absolute');
  });

  it('rejects a SAML module path that does not start with a slash', () => {
    const error = errorOf(() =>
      load({
        env: {
          Authentication__Saml__SpOptionsEntityId: 'urn:sp',
          Authentication__Saml__SpOptionsModulePath: 'saml2',
          ...samlEnv(),
        },
      }),
    );
    expect(error.message).toContain('Authentication:Saml:SpOptionsModulePath');
  });

  it('does not check the settings of inactive providers', () => {
    const config = loadLocal({ env: { Authentication__OpenId__Authority: 'not a url' } });
    expect(config.authentication.openId).toBeNull();
  });
});

describe('loadConfig validation', () => {
  it('rejects unknown keys inside a known section from any source, naming the key', () => {
    writeJson('appsettings.json', { Server: { Prot: 8081 } });
    expect(errorOf(() => loadLocal()).message).toContain('Invalid configuration: unknown key Server:Prot');
    rmSync(join(dir, 'appsettings.json'));

    expect(errorOf(() => loadLocal({ env: { Session__IdleTimeout: '5' } })).message).toContain(
      'unknown key Session:IdleTimeout (from environment variable Session__IdleTimeout)',
    );
    expect(errorOf(() => loadLocal({ argv: ['--Authentication:OpenId:Authorty=x'] })).message).toContain(
      'unknown key Authentication:OpenId:Authorty',
    );
    expect(errorOf(() => loadLocal({ argv: ['--Sever:Port=1'] })).message).toContain('unknown key Sever:Port');
  });

  it("refuses the names of an object's prototype as unknown keys from any source, leaving Object.prototype alone", () => {
    const prototypeMembers = Object.getOwnPropertyNames(Object.prototype).sort();
    writeJson(
      'appsettings.json',
      '{"Server":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"isAdmin":true}}}}',
    );
    const fromFile = errorOf(() => loadLocal()).message;
    expect(fromFile).toContain('unknown key Server:__proto__:polluted');
    expect(fromFile).toContain('unknown key Server:constructor:prototype:isAdmin');
    rmSync(join(dir, 'appsettings.json'));
    expect(errorOf(() => loadLocal({ env: { Server__constructor__prototype__isAdmin: 'true' } })).message).toContain(
      'unknown key Server:constructor:prototype:isAdmin',
    );
    for (const arg of ['--Server:__proto__:polluted=yes', '--__proto__:polluted=yes', '--Server:prototype=1']) {
      expect(errorOf(() => loadLocal({ argv: [arg] })).message).toContain('unknown key');
    }
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeMembers);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it('rejects a port that is not an integer in range, naming the key', () => {
    expect(errorOf(() => loadLocal({ env: { Server__Port: 'abc' } })).message).toBe(
      'Invalid configuration: Server:Port must be an integer between 0 and 65535 (got "abc")',
    );
    expect(errorOf(() => loadLocal({ argv: ['--Server:Port=70000'] })).message).toContain('Server:Port');
    expect(errorOf(() => loadLocal({ argv: ['--Server:Port=80.5'] })).message).toContain('Server:Port');
  });

  it('rejects a value that is not a boolean, naming the key', () => {
    expect(errorOf(() => loadLocal({ env: { Grpc__RequireAuthentication: 'yes' } })).message).toContain(
      'Grpc:RequireAuthentication must be true or false (got "yes")',
    );
    expect(loadLocal({ env: { Grpc__RequireAuthentication: 'TRUE' } }).grpc.requireAuthentication).toBe(true);
  });

  it('accepts JSON numbers and booleans as well as their text', () => {
    writeJson('appsettings.json', {
      Authentication: { Provider: 'Local' },
      Grpc: { RequireAuthentication: true },
      Server: { ShutdownTimeoutSeconds: 2.5 },
      Session: { IdleTimeoutMinutes: '60' },
    });
    const config = load();
    expect(config.grpc.requireAuthentication).toBe(true);
    expect(config.server.shutdownTimeoutSeconds).toBe(2.5);
    expect(config.session.idleTimeoutMinutes).toBe(60);
  });

  it('rejects a Database:Url that is not a postgres URL without echoing it', () => {
    const error = errorOf(() => loadLocal({ env: { Database__Url: 'mysql://root:hunter2@db/app' } }));
    expect(error.message).toContain('Database:Url');
    expect(error.message).not.toContain('hunter2');
    expect(loadLocal({ env: { Database__Url: 'postgresql://u:p@db:5432/app' } }).database.url).toBe(
      'postgresql://u:p@db:5432/app',
    );
    expect(loadLocal({ env: { Database__Url: '' } }).database.url).toBeNull();
  });

  it('rejects a short session secret, other bad values, and reports them all at once', () => {
    const error = errorOf(() =>
      loadLocal({
        env: {
          Session__Secret: 'short',
          Session__IdleTimeoutMinutes: '0',
          Server__Host: ' ',
          Logging__Level: 'verbose',
          Server__ShutdownTimeoutSeconds: '-1',
        },
      }),
    );
    expect(error.issues).toHaveLength(5);
    for (const key of [
      'Session:Secret',
      'Session:IdleTimeoutMinutes',
      'Server:Host',
      'Logging:Level',
      'Server:ShutdownTimeoutSeconds',
    ]) {
      expect(error.message).toContain(key);
    }
    expect(error.message).not.toContain('short');
  });

  it('rejects an empty array element, naming the key', () => {
    expect(errorOf(() => loadLocal({ env: { Authorization__RoleClaimTypes__0: '' } })).message).toContain(
      'Authorization:RoleClaimTypes:0 must not be empty',
    );
  });
});

describe('loadConfig TLS', () => {
  it('reads the certificate and key, resolving relative paths against the working directory', () => {
    writeFileSync(join(dir, 'cert.pem'), testCert);
    writeFileSync(join(dir, 'key.pem'), testKey);
    const config = loadLocal({ env: { Server__Tls__CertificatePath: 'cert.pem', Server__Tls__KeyPath: 'key.pem' } });
    expect(config.server.tls?.certificatePath).toBe(join(dir, 'cert.pem'));
    expect(config.server.tls?.keyPath).toBe(join(dir, 'key.pem'));
    expect(config.server.tls?.cert.toString()).toBe(testCert);
    expect(config.server.tls?.key.toString()).toBe(testKey);
  });

  it('rejects one of the pair alone, naming the missing key', () => {
    writeFileSync(join(dir, 'cert.pem'), testCert);
    expect(errorOf(() => loadLocal({ env: { Server__Tls__CertificatePath: 'cert.pem' } })).message).toBe(
      'Invalid configuration: Server:Tls:KeyPath is required when Server:Tls:CertificatePath is set',
    );
    expect(errorOf(() => loadLocal({ env: { Server__Tls__KeyPath: 'key.pem' } })).message).toContain(
      'Server:Tls:CertificatePath is required',
    );
  });

  it('rejects a file that cannot be read, naming the key and the file', () => {
    writeFileSync(join(dir, 'cert.pem'), testCert);
    const error = errorOf(() =>
      loadLocal({ env: { Server__Tls__CertificatePath: 'cert.pem', Server__Tls__KeyPath: 'nowhere/key.pem' } }),
    );
    expect(error.message).toContain('Server:Tls:KeyPath');
    expect(error.message).toContain(join(dir, 'nowhere', 'key.pem'));
    expect(error.message).not.toContain('Server:Tls:CertificatePath');
  });

  // A folder cannot be read as a file by anyone, root included (a mode-000 file can, by root).
  it('rejects a path that exists but cannot be read as a file', () => {
    writeFileSync(join(dir, 'cert.pem'), testCert);
    mkdirSync(join(dir, 'key-folder'));
    const error = errorOf(() =>
      loadLocal({ env: { Server__Tls__CertificatePath: 'cert.pem', Server__Tls__KeyPath: 'key-folder' } }),
    );
    expect(error.message).toContain('Server:Tls:KeyPath names a file that cannot be read');
  });

  it('rejects a file that is not PEM, naming the key', () => {
    writeFileSync(join(dir, 'cert.pem'), 'not a certificate');
    writeFileSync(join(dir, 'key.pem'), testKey);
    const error = errorOf(() =>
      loadLocal({ env: { Server__Tls__CertificatePath: 'cert.pem', Server__Tls__KeyPath: 'key.pem' } }),
    );
    expect(error.message).toContain('Server:Tls:CertificatePath must name a PEM file');
  });

  it('rejects a key that does not belong to the certificate', () => {
    writeFileSync(join(dir, 'cert.pem'), testCert);
    writeFileSync(join(dir, 'key.pem'), otherKey);
    const error = errorOf(() =>
      loadLocal({ env: { Server__Tls__CertificatePath: 'cert.pem', Server__Tls__KeyPath: 'key.pem' } }),
    );
    expect(error.message).toContain('Server:Tls:KeyPath');
  });
});

describe('loadConfig result', () => {
  it('is deeply frozen', () => {
    const config = loadLocal({ env: { Authorization__Policies__canAll__0: 'admin' } });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.server)).toBe(true);
    expect(Object.isFrozen(config.authentication.local)).toBe(true);
    expect(Object.isFrozen(config.authorization.policies)).toBe(true);
    expect(Object.isFrozen(config.authorization.policies.canAll)).toBe(true);
    expect(Object.isFrozen(config.authorization.roleClaimTypes)).toBe(true);
    expect(() => {
      (config.authorization.policies.canAll as string[]).push('intruder');
    }).toThrow(TypeError);
    expect(config.authorization.policies.canAll).toEqual(['admin']);
  });

  it('does not share default arrays between results', () => {
    const first = loadLocal();
    const second = loadLocal({ env: { Authorization__Policies__canAll__1: 'ops' } });
    expect(first.authorization.policies.canAll).toEqual(['admin']);
    expect(second.authorization.policies.canAll).toEqual(['ops']);
  });

  describe('Server:TrustProxy', () => {
    it('reads the trusted proxies as a list from the environment', () => {
      const config = loadConfig({
        argv: [],
        cwd: mkdtempSync(join(tmpdir(), 'rc-trust-')),
        env: {
          Authentication__Provider: 'Local',
          Server__TrustProxy__0: 'loopback',
          Server__TrustProxy__1: '10.0.0.0/8',
        },
      });
      expect(config.server.trustProxy).toEqual(['loopback', '10.0.0.0/8']);
    });
  });
});

import fc from 'fast-check';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '../../test-support/test-databases.js';
import { startTestServer, type ApiClient, type TestServer } from '../../test-support/test-server.js';

/*
 * Property: whatever a client sends to any REST route (random or malformed paths, bodies, content
 * types and query strings, signed in or not), the server never answers 5xx, every error answer is
 * problem details whose `status` is the HTTP status, and the server keeps working afterwards.
 *
 * FC_SEED fixes the seed (default below); FC_RUNS overrides the number of runs per route group.
 */
const SEED = Number(process.env.FC_SEED ?? 20260521);
const RUNS_OVERRIDE = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : undefined;
const runsFor = (kind: 'sqlite' | 'postgres', weight = 1): number =>
  Math.max(1, Math.round((RUNS_OVERRIDE ?? (kind === 'sqlite' ? 400 : 200)) * weight));

// ---------------------------------------------------------------------------------------------
// Symbolic values, resolved when the request is sent: real ids of fixtures that may be deleted
// and re-created during the run, current generations, and big strings that would make the
// counterexample unreadable if fast-check printed them.

type RefName =
  | 'service'
  | 'version'
  | 'otherService'
  | 'otherVersion'
  | 'member'
  | 'user'
  | `entry${number}`
  | `generation${number}`;

class Ref {
  constructor(readonly name: RefName) {}
  [fc.toStringMethod](): string {
    return `<${this.name}>`;
  }
}

class Big {
  constructor(
    readonly length: number,
    readonly char = 'x',
  ) {}
  [fc.toStringMethod](): string {
    return `<${this.length} × ${JSON.stringify(this.char)}>`;
  }
}

/** `count` distinct batch items (ids that exist nowhere). */
class ManyItems {
  constructor(readonly count: number) {}
  [fc.toStringMethod](): string {
    return `<${this.count} batch items>`;
  }
}

/** Raw body text made from a value: `JSON.stringify` of it, cut after `cut` characters when set. */
class JsonText {
  constructor(
    readonly value: unknown,
    readonly cut?: number,
  ) {}
  [fc.toStringMethod](): string {
    return `json(${fc.stringify(this.value)})${this.cut !== undefined ? `.slice(0, ${this.cut})` : ''}`;
  }
}

type Resolver = (name: RefName) => string | number;

function resolve(value: unknown, ref: Resolver): unknown {
  if (value instanceof Ref) return ref(value.name);
  if (value instanceof Big) return value.char.repeat(value.length);
  if (value instanceof ManyItems) {
    return Array.from({ length: value.count }, (_, i) => ({
      id: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
      rawValue: String(i),
      generation: 1,
    }));
  }
  if (Array.isArray(value)) return value.map((v) => resolve(v, ref));
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k, { value: resolve(v, ref), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

function refsIn(value: unknown, found = new Set<RefName>()): Set<RefName> {
  if (value instanceof Ref) found.add(value.name);
  else if (value instanceof JsonText) refsIn(value.value, found);
  else if (Array.isArray(value)) value.forEach((v) => refsIn(v, found));
  else if (value !== null && typeof value === 'object') Object.values(value).forEach((v) => refsIn(v, found));
  return found;
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return ''; // BigInt and the like: send an empty body instead
  }
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

const ENTRY_TYPES = [0, 1, 2, 3, 4, 5, 6, 7, 8] as const;
const entryRef = fc.constantFrom(...ENTRY_TYPES).map((t) => new Ref(`entry${t}`));
const generationRef = fc.constantFrom(...ENTRY_TYPES).map((t) => new Ref(`generation${t}`));

/** Strings a client might send by mistake or malice. */
const nastyString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\ud800', '\udfff x', '💥', '../..', '%00', "'; DROP TABLE services; --", '%', '_', '\\'),
  fc.nat({ max: 5000 }).map((n) => 'ü'.repeat(n)),
);

/** Values of the wrong type, or of the right type but out of range. */
const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.constantFrom(1e308, -1e308, 2 ** 53 + 2, 2 ** 63, 2 ** 31, -(2 ** 31) - 1, 0, -1, -0, 1.5, 1e-300, 9007199254740991),
  fc.double(),
  fc.array(fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }), { maxLength: 3 }),
  fc.object({ maxDepth: 2 }),
  nastyString,
  fc.constantFrom(new Big(300_000), new Big(256 * 1024 + 1), new Big(256 * 1024), new Big(100_000, '\u0000'), new Big(70_000, '€')),
  fc.jsonValue({ maxDepth: 2 }),
);

const field = (good: fc.Arbitrary<unknown>) => fc.oneof({ arbitrary: good, weight: 3 }, { arbitrary: wrongValue, weight: 2 });

const shortText = (max: number) => fc.oneof(fc.string({ maxLength: max }), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }));
const configKey = fc.oneof(
  fc.array(fc.stringMatching(/^[A-Za-z0-9_.-]{1,12}$/), { minLength: 1, maxLength: 4 }).map((s) => s.join(':')),
  fc.constantFrom(':', 'a::b', ':a', 'a:', 'x'.repeat(512), 'x'.repeat(513)),
);
const rawValueGood = fc.oneof(
  fc.constant(null),
  fc.constantFrom('true', 'FALSE', 'yes', '42', '-12', '3.5', '1e3', '1e400', 'NaN', '2026-02-29', '2024-02-29T23:59:59Z', '25:00:00', '1.02:03:04.1234567'),
  fc.constantFrom('red', 'green', 'purple', '[1,2]', '{"a":1}', '[', '{}', ''),
  fc.jsonValue({ maxDepth: 2 }).map((v) => safeStringify(v)),
  fc.string(),
);
const pageToken = fc.oneof(
  fc.constant(null),
  fc.string({ maxLength: 40 }),
  fc.constantFrom(0, 1, -1, 2 ** 53 - 1, 2 ** 53 + 2, 1.5, 1e308).map((p) => Buffer.from(JSON.stringify({ p })).toString('base64url')),
  fc.jsonValue({ maxDepth: 2 }).map((v) => Buffer.from(safeStringify(v)).toString('base64url')),
  fc.constant('x'.repeat(201)),
);
const generation = fc.oneof(generationRef, fc.integer({ min: -2, max: 5 }), wrongValue);
const fuzzUsername = fc
  .oneof(fc.constantFrom('fuzzdev', 'nobody', 'a b', 'a/b', ''), fc.string({ maxLength: 30 }), fc.string({ unit: 'grapheme', maxLength: 10 }))
  .filter((name) => name.trim().toLowerCase() !== 'admin');

/** An object that has some of the right field names with values good and bad, and maybe strangers. */
function shaped(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(
      fc.record(fields, { requiredKeys: [] }),
      fc.option(fc.dictionary(fc.constantFrom('__proto__', 'constructor', 'id', 'extra', 'generation', ''), wrongValue, { maxKeys: 2 }), {
        freq: 4,
      }),
    )
    .map(([known, extra]) => ({ ...(extra ?? {}), ...known }));
}

const serviceFields = {
  name: field(shortText(220)),
  description: field(fc.option(shortText(50))),
  repositoryUrl: field(fc.oneof(fc.webUrl(), fc.constantFrom('ftp://x', 'http://', 'https://ex ample.com', 'javascript:alert(1)'))),
  contactEmail: field(fc.oneof(fc.emailAddress(), fc.constantFrom('a@', '@b', 'a@b'))),
};
const versionFields = { versionLabel: field(shortText(220)), description: field(fc.option(shortText(50))) };
const entryCreateFields = {
  key: field(configKey),
  name: field(shortText(220)),
  rawValue: field(rawValueGood),
  valueType: field(fc.integer({ min: -1, max: 9 })),
  enumDefinition: field(fc.option(fc.constantFrom('red,green|blue', '', ',|', 'a'))),
  description: field(fc.option(shortText(50))),
  groupName: field(fc.option(shortText(50))),
  groupDescription: field(fc.option(shortText(50))),
};
const entryUpdateFields = { ...entryCreateFields, generation };
const batchItem = shaped({ id: field(fc.oneof(entryRef, fc.uuid())), rawValue: field(rawValueGood), generation });
const setBody: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.array(batchItem, { minLength: 1, maxLength: 5 }), weight: 6 },
  {
    // Every real entry once, with its current generation: often succeeds, or fails on a value.
    arbitrary: fc
      .subarray([...ENTRY_TYPES], { minLength: 1 })
      .chain((types) =>
        fc.tuple(...types.map((t) => rawValueGood.map((rawValue) => ({ id: new Ref(`entry${t}`), rawValue, generation: new Ref(`generation${t}`) })))),
      ),
    weight: 3,
  },
  { arbitrary: fc.constantFrom([], new ManyItems(1000), new ManyItems(1001)), weight: 1 },
  { arbitrary: entryRef.map((id) => [{ id, rawValue: '1', generation: 1 }, { id, rawValue: '2', generation: 1 }]), weight: 1 },
);

const searchFields = { name: field(fc.option(shortText(220))), pageSize: field(fc.integer({ min: -5, max: 1000 })), pageToken: field(pageToken) };
const auditFields = {
  serviceId: field(fc.oneof(fc.constant(new Ref('service')), fc.uuid())),
  entityType: field(fc.option(fc.constantFrom('Service', 'version', 'ENTRY', 'Member', 'member ', 'Other'))),
  pageSize: field(fc.integer({ min: -5, max: 1000 })),
  pageToken: field(pageToken),
};
const userFields = {
  username: field(fuzzUsername),
  password: field(fc.string({ maxLength: 40 })),
  role: field(fc.constantFrom('admin', 'developer', 'Admin', 'root')),
};
const loginFields = { username: field(fuzzUsername), password: field(fc.string({ maxLength: 40 })) };

/** Raw path segments: real ids, random UUIDs and every kind of junk. */
function segment(real: fc.Arbitrary<Ref | string>): fc.Arbitrary<Ref | string> {
  const encoded = (s: string) => encodeURIComponent(s);
  return fc.oneof(
    { arbitrary: real, weight: 6 },
    { arbitrary: fc.uuid(), weight: 2 },
    { arbitrary: fc.uuid().map((u) => u.toUpperCase()), weight: 1 },
    { arbitrary: fc.string().map(encoded), weight: 2 },
    { arbitrary: fc.string({ unit: 'grapheme' }).map(encoded), weight: 1 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map(encoded), weight: 1 },
    { arbitrary: fc.constantFrom(99, 100, 101, 1000, 5000).map((n) => 'a'.repeat(n)), weight: 1 },
    {
      arbitrary: fc.constantFrom(
        '..',
        '.',
        '%2e%2e',
        '%2E',
        '%00',
        'a%00b',
        '%2F',
        'a%2Fb',
        '..%2F..%2Fetc%2Fpasswd',
        '%',
        '%zz',
        '%E0%A4%A',
        '%C0%AE',
        '%FF',
        ';',
        '%20',
        '*',
        '~',
        "'",
        '',
        '%7B%7D',
        'null',
        'undefined',
        '00000000-0000-0000-0000-000000000000',
        'set',
        'members',
        '%3F',
        '%23',
      ),
      weight: 2,
    },
  );
}

const serviceSeg = segment(fc.constantFrom(new Ref('service'), new Ref('otherService')));
const versionSeg = segment(fc.constantFrom(new Ref('version'), new Ref('otherVersion')));
const entrySeg = segment(entryRef);
const memberSeg = segment(fc.oneof(fc.constant(new Ref('member')), fc.emailAddress().map(encodeURIComponent)));
const userSeg = segment(fc.constantFrom(new Ref('user'), 'nobody')).filter(
  (s) => typeof s !== 'string' || !safeDecode(s).trim().toLowerCase().startsWith('admin'),
);

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const queryString = fc.oneof(
  { arbitrary: fc.constant(''), weight: 6 },
  { arbitrary: fc.string().map((s) => `?${encodeURIComponent(s)}`), weight: 1 },
  { arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 20 })).map((d) => `?${new URLSearchParams(d).toString()}`), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      '?',
      '??',
      '?%',
      '?a=%zz',
      '?a[b]=1',
      '?__proto__[x]=1',
      '?constructor[prototype][x]=1',
      '?pageSize=-1&pageSize=2',
      '?name=%00',
      `?${'a=1&'.repeat(1000)}`,
      '?#frag',
    ),
    weight: 1,
  },
);

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';
type AuthKind = 'admin' | 'developer' | 'none' | 'garbage' | 'disposable';

interface Route {
  readonly method: Method;
  /** Path template; `{name}` placeholders take a segment from `segments`. */
  readonly path: string;
  readonly body?: fc.Arbitrary<unknown>;
}

interface RequestSpec {
  route: string;
  method: Method;
  path: Array<string | Ref>;
  query: string;
  auth: AuthKind;
  contentType: string | null;
  body: undefined | string | Big | JsonText;
}

const SEGMENTS: Record<string, fc.Arbitrary<Ref | string>> = {
  service: serviceSeg,
  version: versionSeg,
  entry: entrySeg,
  member: memberSeg,
  user: userSeg,
};

const contentType = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 12 },
  {
    arbitrary: fc.constantFrom(
      null,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'application/json;charset=utf-16',
      'APPLICATION/JSON',
      'application/problem+json',
      'application/octet-stream',
      'application/xml',
      '*/*',
      'application/json, text/plain',
      'json',
      '',
    ),
    weight: 4,
  },
);

function bodyFor(route: Route): fc.Arbitrary<RequestSpec['body']> {
  const shapedBody: fc.Arbitrary<unknown> = route.body ?? fc.constant({});
  return fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 2 },
    { arbitrary: shapedBody.map((v) => new JsonText(v)), weight: 10 },
    { arbitrary: shapedBody.map((v) => new JsonText([v])), weight: 1 },
    { arbitrary: fc.anything({ maxDepth: 3 }).map((v) => new JsonText(v)), weight: 2 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => new JsonText(v)), weight: 2 },
    { arbitrary: fc.json({ maxDepth: 3 }), weight: 1 },
    { arbitrary: fc.tuple(shapedBody, fc.nat()).map(([v, n]) => new JsonText(v, n)), weight: 2 },
    {
      arbitrary: fc.constantFrom(
        '',
        ' ',
        '{',
        '[',
        'null',
        '""',
        '{"a":',
        '\u0000',
        'undefined',
        'NaN',
        '{"__proto__":{"x":1}}',
        '{"constructor":{"prototype":{"x":1}}}',
        '\ufeff{}',
        '{"name":"a","name":"b"}',
        '[1,2',
        '1e999999',
        '-',
        '{"name":"\\ud800"}',
        `${'['.repeat(5000)}${']'.repeat(5000)}`,
      ),
      weight: 2,
    },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 50 }), weight: 1 },
    // Over the 1 MiB body limit.
    { arbitrary: fc.constant(new JsonText({ name: new Big(1024 * 1024 + 10) })), weight: 1 },
  );
}

function requestArb(routes: readonly Route[], auths: fc.Arbitrary<AuthKind>): fc.Arbitrary<RequestSpec> {
  return fc.constantFrom(...routes).chain((route) => {
    const parts = route.path.split(/(\{\w+\})/).filter(Boolean);
    const pathArb = fc.tuple(
      ...parts.map((p) => {
        const name = /^\{(\w+)\}$/.exec(p)?.[1];
        const seg = name ? SEGMENTS[name] : undefined;
        if (name && !seg) throw new Error(`no segment arbitrary for ${name}`);
        return seg ?? fc.constant(p);
      }),
    );
    const method = fc.oneof(
      { arbitrary: fc.constant(route.method), weight: 9 },
      { arbitrary: fc.constantFrom<Method>('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'), weight: 1 },
    );
    return fc.record({
      route: fc.constant(`${route.method} ${route.path}`),
      method,
      path: pathArb,
      query: queryString,
      auth: auths,
      contentType,
      body: bodyFor(route),
    }) as fc.Arbitrary<RequestSpec>;
  });
}

const usualAuth = fc.oneof(
  { arbitrary: fc.constant<AuthKind>('admin'), weight: 16 },
  { arbitrary: fc.constantFrom<AuthKind>('none', 'garbage', 'developer'), weight: 4 },
);
// Never the admin session on sign-in/sign-out: logging out would end it.
const authRouteAuth = fc.constantFrom<AuthKind>('none', 'garbage', 'disposable', 'developer');

const ROUTE_GROUPS: ReadonlyArray<{ name: string; routes: readonly Route[]; auth?: fc.Arbitrary<AuthKind>; weight?: number }> = [
  {
    name: 'services',
    routes: [
      { method: 'POST', path: '/api/services/search', body: shaped(searchFields) },
      { method: 'POST', path: '/api/services', body: shaped(serviceFields) },
      { method: 'GET', path: '/api/services/{service}' },
      { method: 'PUT', path: '/api/services/{service}', body: shaped(serviceFields) },
      { method: 'DELETE', path: '/api/services/{service}' },
    ],
  },
  {
    name: 'members',
    routes: [
      { method: 'GET', path: '/api/services/{service}/members' },
      { method: 'POST', path: '/api/services/{service}/members', body: shaped({ userId: field(fc.oneof(fc.emailAddress(), shortText(330))) }) },
      { method: 'DELETE', path: '/api/services/{service}/members/{member}' },
    ],
  },
  {
    name: 'versions',
    routes: [
      { method: 'GET', path: '/api/configversions/{service}' },
      { method: 'POST', path: '/api/configversions/{service}', body: shaped(versionFields) },
      { method: 'GET', path: '/api/configversions/{service}/{version}' },
      { method: 'PUT', path: '/api/configversions/{service}/{version}', body: shaped(versionFields) },
      { method: 'DELETE', path: '/api/configversions/{service}/{version}' },
    ],
  },
  {
    name: 'entries',
    weight: 1.5,
    routes: [
      { method: 'GET', path: '/api/configentries/{service}/{version}' },
      { method: 'POST', path: '/api/configentries/{service}/{version}', body: shaped(entryCreateFields) },
      { method: 'PUT', path: '/api/configentries/{service}/{version}/set', body: setBody },
      { method: 'PUT', path: '/api/configentries/{service}/{version}/set', body: setBody },
      { method: 'PUT', path: '/api/configentries/{service}/{version}/{entry}', body: shaped(entryUpdateFields) },
      { method: 'DELETE', path: '/api/configentries/{service}/{version}/{entry}' },
    ],
  },
  {
    name: 'audit logs',
    routes: [{ method: 'POST', path: '/api/auditlogs/search', body: shaped(auditFields) }],
  },
  {
    name: 'users',
    // Creating a user or changing a password hashes with PBKDF2 (310000 rounds): fewer runs.
    weight: 0.5,
    routes: [
      { method: 'GET', path: '/api/users' },
      { method: 'POST', path: '/api/users', body: shaped(userFields) },
      { method: 'GET', path: '/api/users/{user}' },
      { method: 'PUT', path: '/api/users/{user}', body: shaped({ password: userFields.password, role: userFields.role }) },
      { method: 'DELETE', path: '/api/users/{user}' },
    ],
  },
  {
    name: 'sign-in and identity',
    auth: authRouteAuth,
    weight: 0.5,
    routes: [
      { method: 'POST', path: '/auth/login', body: shaped(loginFields) },
      { method: 'POST', path: '/auth/logout' },
      { method: 'GET', path: '/auth/me' },
      { method: 'GET', path: '/api/auth/me' },
      { method: 'GET', path: '/auth/config' },
    ],
  },
  {
    name: 'operations',
    weight: 0.5,
    routes: [
      { method: 'GET', path: '/healthz' },
      { method: 'GET', path: '/readyz' },
      { method: 'GET', path: '/metrics' },
    ],
  },
];

// ---------------------------------------------------------------------------------------------

/**
 * Known gap: Fastify's router answers a malformed percent-encoding in the path (400
 * FST_ERR_BAD_URL) and a path parameter over 100 characters (414 FST_ERR_MAX_PARAM_LENGTH) with
 * its own JSON, before any hook or error handler runs; only the `frameworkErrors` option of the
 * Fastify constructor reaches them. The property tolerates exactly these two answers; the
 * `it.fails` test below pins them and will start failing once they are problem details.
 */
function isKnownRouterAnswer(status: number, contentType: string, text: string): boolean {
  if (!contentType.startsWith('application/json')) return false;
  const code = /"code":"(FST_ERR_BAD_URL|FST_ERR_MAX_PARAM_LENGTH)"/.exec(text)?.[1];
  return (status === 400 && code === 'FST_ERR_BAD_URL') || (status === 414 && code === 'FST_ERR_MAX_PARAM_LENGTH');
}

const DEV_USER = 'fuzzdev';
const DEV_PASSWORD = 'fuzzdev-password';
const MEMBER = 'member@example.com';

/** Error log lines of the server (level ≥ error): an unexpected failure always logs one. */
function errorLogCollector() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'error' }, stream), lines };
}

describe.each(databaseKinds)('REST API robustness on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let pool: Pool;
  const errorLog = errorLogCollector();
  const cookies: Record<AuthKind, string | null> = { admin: null, developer: null, none: null, garbage: 'rc_session=garbage.garbage', disposable: null };
  const ids = new Map<string, string>();
  const generations = new Map<number, number>();
  let fixturesStale = true;
  let usersStale = true;

  async function signIn(username: string, password: string): Promise<string> {
    const client = await server.client().login(username, password);
    if (!client.sessionCookie) throw new Error(`no session cookie for ${username}`);
    return client.sessionCookie;
  }

  async function ok<T = any>(res: Promise<{ status: number; body: T; text: string }>, expected: number): Promise<T> {
    const r = await res;
    if (r.status !== expected) throw new Error(`fixture request answered ${r.status}: ${r.text}`);
    return r.body;
  }

  /** A service with a version holding one entry of every type, a member, and a second service with a version. */
  async function createFixtures(): Promise<void> {
    const service = await ok(admin.post('/api/services', { name: `fuzz-${ids.size}-${Date.now()}` }), 201);
    const version = await ok(admin.post(`/api/configversions/${service.id}`, { versionLabel: '1.0.0' }), 201);
    const other = await ok(admin.post('/api/services', { name: `fuzz-other-${Date.now()}` }), 201);
    const otherVersion = await ok(admin.post(`/api/configversions/${other.id}`, { versionLabel: '2.0.0' }), 201);
    await ok(admin.post(`/api/services/${service.id}/members`, { userId: MEMBER }), 201);
    await ok(admin.post(`/api/services/${service.id}/members`, { userId: DEV_USER }), 201);
    ids.set('service', service.id).set('version', version.id).set('otherService', other.id).set('otherVersion', otherVersion.id);
    ids.set('member', MEMBER).set('user', DEV_USER);
    const defaults: Record<number, [string | null, string | null]> = {
      0: ['anything', null],
      1: ['text', null],
      2: ['true', null],
      3: ['2026-01-01T00:00:00Z', null],
      4: ['01:02:03', null],
      5: ['red', 'red,green|blue'],
      6: ['42', null],
      7: ['[1,2]', null],
      8: ['{"a":1}', null],
    };
    for (const type of ENTRY_TYPES) {
      const [rawValue, enumDefinition] = defaults[type] ?? [null, null];
      const entry = await ok(
        admin.post(`/api/configentries/${service.id}/${version.id}`, { key: `Fuzz:Type${type}`, valueType: type, rawValue, enumDefinition }),
        201,
      );
      ids.set(`entry${type}`, entry.id);
    }
    fixturesStale = false;
  }

  async function refresh(): Promise<void> {
    if (usersStale) {
      const created = await admin.post('/api/users', { username: DEV_USER, password: DEV_PASSWORD, role: 'developer' });
      if (created.status !== 201) await ok(admin.put(`/api/users/${DEV_USER}`, { password: DEV_PASSWORD, role: 'developer' }), 200);
      cookies.developer = await signIn(DEV_USER, DEV_PASSWORD);
      cookies.disposable = await signIn(DEV_USER, DEV_PASSWORD);
      usersStale = false;
    }
    if (fixturesStale) await createFixtures();
  }

  async function loadGenerations(): Promise<void> {
    const res = await admin.get(`/api/configentries/${ids.get('service')}/${ids.get('version')}`);
    generations.clear();
    if (res.status !== 200) return;
    for (const entry of res.body as Array<{ id: string; generation: number }>) {
      const type = ENTRY_TYPES.find((t) => ids.get(`entry${t}`) === entry.id);
      if (type !== undefined) generations.set(type, entry.generation);
    }
  }

  const resolveRef: Resolver = (name) => {
    const gen = /^generation(\d)$/.exec(name);
    if (gen) return generations.get(Number(gen[1])) ?? 1;
    const id = ids.get(name);
    if (id === undefined) throw new Error(`unknown fixture ${name}`);
    return id;
  };

  function describeSpec(spec: RequestSpec, path: string, body: string | undefined): string {
    const preview = body === undefined ? '(none)' : body.length > 300 ? `${body.slice(0, 300)}… (${body.length} chars)` : body;
    return `${spec.method} ${path} [auth ${spec.auth}, content-type ${spec.contentType ?? '(none)'}] body: ${preview}`;
  }

  async function send(spec: RequestSpec): Promise<void> {
    await refresh();
    const refs = refsIn(spec.body);
    if ([...refs].some((r) => r.startsWith('generation'))) await loadGenerations();

    const path =
      spec.path.map((p) => (p instanceof Ref ? encodeURIComponent(String(resolveRef(p.name))) : p)).join('') + spec.query;
    let body: string | undefined;
    if (spec.body instanceof JsonText) {
      const text = safeStringify(resolve(spec.body.value, resolveRef));
      body = spec.body.cut === undefined ? text : text.slice(0, spec.body.cut % (text.length + 1));
    } else if (spec.body instanceof Big) {
      body = String(resolve(spec.body, resolveRef));
    } else {
      body = spec.body;
    }
    const headers: Record<string, string> = {};
    if (spec.contentType !== null && body !== undefined) headers['content-type'] = spec.contentType;
    const cookie = cookies[spec.auth];
    if (cookie) headers.cookie = cookie;

    const what = describeSpec(spec, path, body);
    let res;
    try {
      res = await pool.request({ method: spec.method, path, headers, body });
    } catch (error) {
      throw new Error(`no answer (${String(error)}) to ${what}`);
    }
    const text = await res.body.text();
    const status = res.statusCode;
    const type = String(res.headers['content-type'] ?? '');

    if (status >= 500) throw new Error(`answered ${status} ${text.slice(0, 500)} to ${what}`);
    if (status >= 400 && isKnownRouterAnswer(status, type, text)) return;
    if (status >= 400) {
      if (!type.startsWith('application/problem+json')) throw new Error(`answered ${status} with content-type "${type}" to ${what}`);
      if (spec.method !== 'HEAD') {
        let problem: { status?: unknown; type?: unknown; title?: unknown; detail?: unknown; errors?: unknown; stack?: unknown };
        try {
          problem = JSON.parse(text) as typeof problem;
        } catch {
          throw new Error(`answered ${status} with a body that is not JSON (${text.slice(0, 200)}) to ${what}`);
        }
        if (problem.status !== status) throw new Error(`answered ${status} with problem status ${String(problem.status)} to ${what}`);
        if (typeof problem.type !== 'string' || typeof problem.title !== 'string' || typeof problem.detail !== 'string') {
          throw new Error(`answered ${status} with an incomplete problem ${text.slice(0, 300)} to ${what}`);
        }
        if ('stack' in problem || /\n\s+at /.test(text)) throw new Error(`answered a stack trace to ${what}`);
      }
    } else if (type.includes('json') && text && spec.method !== 'HEAD') {
      JSON.parse(text); // throws on a broken success body
    }

    // A successful delete or user change may have removed what later runs refer to.
    if (status < 300 && spec.method === 'DELETE' && spec.route.startsWith('DELETE /api/')) fixturesStale = true;
    if (status < 300 && spec.route.includes('/api/users/') && spec.method !== 'GET') usersStale = true;
    if (status < 300 && spec.route === 'POST /auth/logout' && (spec.auth === 'developer' || spec.auth === 'disposable')) usersStale = true;
  }

  beforeAll(async () => {
    server = await startTestServer({ kind, deps: { logger: errorLog.logger } });
    admin = await server.admin();
    cookies.admin = admin.sessionCookie;
    pool = new Pool(server.baseUrl, { connections: 4, headersTimeout: 15_000, bodyTimeout: 15_000 });
    await refresh();
  });
  afterAll(async () => {
    await pool?.close();
    await server?.close();
  });

  it.each(ROUTE_GROUPS.map((g, index) => ({ ...g, index })))(
    'never answers 5xx and always answers problem details on errors: $name',
    async ({ routes, auth, weight, index }) => {
      await fc.assert(
        fc.asyncProperty(requestArb(routes, auth ?? usualAuth), (spec) => send(spec)),
        { seed: SEED + index, numRuns: runsFor(kind, weight), endOnFailure: false },
      );
    },
    120_000,
  );

  // Known gap (see isKnownRouterAnswer): remove `.fails` once the router's answers are problem details.
  it.fails('answers problem details to a malformed percent-encoding and an over-long path parameter', async () => {
    for (const path of ['/api/services/%zz', `/api/services/${'a'.repeat(101)}`]) {
      const res = await pool.request({ method: 'GET', path, headers: { cookie: cookies.admin ?? '' } });
      const text = await res.body.text();
      expect(res.statusCode).toBeLessThan(500);
      expect(String(res.headers['content-type'])).toContain('application/problem+json');
      expect(JSON.parse(text)).toMatchObject({ status: res.statusCode });
    }
  });

  it('still serves health checks and the normal flow afterwards, with nothing logged as an error', async () => {
    expect((await server.client().get('/healthz')).status).toBe(200);
    expect((await server.client().get('/readyz')).status).toBe(200);

    const fresh = await server.admin();
    const service = await fresh.post('/api/services', { name: 'after-the-storm' });
    expect(service.status).toBe(201);
    const version = await fresh.post(`/api/configversions/${service.body.id}`, { versionLabel: '1.0' });
    expect(version.status).toBe(201);
    const entry = await fresh.post(`/api/configentries/${service.body.id}/${version.body.id}`, { key: 'Limits:Max', valueType: 6, rawValue: '1' });
    expect(entry.status).toBe(201);
    const set = await fresh.put(`/api/configentries/${service.body.id}/${version.body.id}/set`, [
      { id: entry.body.id, rawValue: '2', generation: entry.body.generation },
    ]);
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject([{ id: entry.body.id, rawValue: '2', generation: 2 }]);
    const listed = await fresh.get(`/api/configentries/${service.body.id}/${version.body.id}`);
    expect(listed.body).toMatchObject([{ key: 'Limits:Max', rawValue: '2', generation: 2 }]);

    expect(errorLog.lines).toEqual([]);
  });
});

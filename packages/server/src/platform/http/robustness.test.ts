import { Writable } from 'node:stream';
import fc from 'fast-check';
import { pino } from 'pino';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

/*
 * Property: whatever a client sends to any REST route (random or malformed paths, bodies, content
 * types and query strings, signed in or not), the server never answers 5xx, every error answer is
 * problem details whose `status` is the HTTP status, and the server keeps working afterwards.
 *
 * A third of the requests are valid, a third are valid but for one thing, a third are chaos: so
 * the runs reach the commands and the database with edge values, not only the schema validator.
 *
 * FC_SEED fixes the seed (default below); FC_RUNS overrides the number of runs per route group;
 * FC_VERBOSE prints how often each route answered each status.
 */
const SEED = Number(process.env.FC_SEED ?? 20260521);
const RUNS_OVERRIDE = process.env.FC_RUNS ? Number(process.env.FC_RUNS) : undefined;
const runsFor = (kind: 'sqlite' | 'postgres', weight = 1): number =>
  Math.max(1, Math.round((RUNS_OVERRIDE ?? (kind === 'sqlite' ? 400 : 250)) * weight));

// ---------------------------------------------------------------------------------------------
// Symbolic values, resolved when the request is sent: real ids of fixtures that may be deleted
// and re-created during the run, current generations, and big strings that would make a
// counterexample unreadable if fast-check printed them.

type RefName =
  | 'service'
  | 'version'
  | 'otherService'
  | 'otherVersion'
  | 'member'
  | 'user'
  | `entry${number}`
  | `generation${number}`
  | `staleGeneration${number}`;

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

/** `count` distinct batch items naming entries that exist nowhere. */
class ManyItems {
  constructor(readonly count: number) {}
  [fc.toStringMethod](): string {
    return `<${this.count} batch items>`;
  }
}

/** Body text: `JSON.stringify` of a value, cut after `cut` characters when set. */
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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
}

/** Copies a plain object keeping keys such as `__proto__` as own data properties. */
function copyObject(value: Record<string, unknown>, map: (v: unknown) => unknown = (v) => v): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    Object.defineProperty(out, k, { value: map(v), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

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
  if (isPlainObject(value)) return copyObject(value, (v) => resolve(v, ref));
  return value;
}

function needsGenerations(value: unknown): boolean {
  if (value instanceof Ref) return /eneration/.test(value.name);
  if (value instanceof JsonText) return needsGenerations(value.value);
  if (Array.isArray(value)) return value.some(needsGenerations);
  if (isPlainObject(value)) return Object.values(value).some(needsGenerations);
  return false;
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return ''; // BigInt and the like: an empty body instead
  }
}

// ---------------------------------------------------------------------------------------------
// Values

const ENTRY_TYPES = [0, 1, 2, 3, 4, 5, 6, 7, 8] as const;
const ENUM_DEFINITION = 'red,green|blue';
const entryRef = fc.constantFrom(...ENTRY_TYPES).map((t) => new Ref(`entry${t}`));

/** Valid strings of 1..max characters that a storage layer may still choke on. */
const edgyText = (max: number): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: fc.string({ minLength: 1, maxLength: Math.min(max, 40) }), weight: 4 },
    { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: Math.min(max, 10) }), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: Math.min(max, 20) }), weight: 2 },
    {
      arbitrary: fc.constantFrom(
        '\u0000',
        'a\u0000b',
        '\ud800',
        'x\udfff',
        '💥',
        "O'Brien",
        '%_\\',
        'NULL',
        '  ',
        '\t\n',
        `${'x'.repeat(max)}`,
      ),
      weight: 2,
    },
  );

/** Strings a client might send by mistake or malice. */
const nastyString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    '💥',
    '../..',
    '%00',
    "'; DROP TABLE services; --",
    '%',
    '_',
    '\\',
  ),
  fc.nat({ max: 5000 }).map((n) => 'ü'.repeat(n)),
);

/** Values of the wrong type, or of the right type but out of range. */
const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.constantFrom(
    1e308,
    -1e308,
    2 ** 53 + 2,
    2 ** 63,
    2 ** 31,
    -(2 ** 31) - 1,
    0,
    -1,
    -0,
    1.5,
    1e-300,
    9007199254740991,
  ),
  fc.double(),
  fc.array(fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }), { maxLength: 3 }),
  fc.object({ maxDepth: 2 }),
  nastyString,
  fc.constantFrom(
    new Big(300_000),
    new Big(256 * 1024 + 1),
    new Big(256 * 1024),
    new Big(100_000, '\u0000'),
    new Big(70_000, '€'),
  ),
  fc.jsonValue({ maxDepth: 2 }),
);

const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { freq: 4 });

/** A raw value that fits an entry of the given type (null fits all). */
function validRawValue(type: number): fc.Arbitrary<string | null> {
  const pick = (...values: string[]) => fc.constantFrom(...values);
  const byType: Record<number, fc.Arbitrary<string>> = {
    // A Big stands in for a string of exactly the largest allowed length.
    0: fc.oneof(edgyText(100), fc.constant(new Big(256 * 1024, 'y')) as unknown as fc.Arbitrary<string>),
    1: fc.oneof(
      edgyText(100),
      fc.constant(''),
      fc.constant(new Big(256 * 1024, 'é')) as unknown as fc.Arbitrary<string>,
    ),
    2: pick('true', 'false', 'TRUE', 'False'),
    3: pick(
      '2026-01-01',
      '2024-02-29T23:59:59Z',
      '2026-11-21T12:00:00.123456789+01:00',
      '0001-01-01T00:00:00Z',
      '9999-12-31 23:59',
    ),
    4: pick('00:00:00', '-1.02:03:04.1234567', '99999999.23:59:59', '12:30:00'),
    5: pick('red', 'green', 'blue'),
    6: fc.oneof(
      pick('0', '-0', '1e308', '-1e-308', '1E3', '.5', '+7', '12345678901234567890123456789'),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
    ),
    7: fc.oneof(
      pick('[]', '[null]', '[[[[]]]]'),
      fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }).map((a) => JSON.stringify(a)),
    ),
    8: fc.oneof(
      pick('{}', '{"__proto__":{"x":1}}', '{"a":{"b":[1,"\\u0000"]}}'),
      fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }).map((o) => JSON.stringify(o)),
    ),
  };
  return nullable(byType[type] ?? fc.string());
}

const anyRawValue = fc.oneof(
  ...ENTRY_TYPES.map((t) => validRawValue(t)),
  fc.constantFrom('yes', '1e400', 'NaN', '2026-02-30', '25:00:00', 'purple', '[', '{}x', ''),
);
const generationRef = fc.constantFrom(...ENTRY_TYPES).map((t) => new Ref(`generation${t}`));
const pageToken = fc.oneof(
  fc.constant(null),
  fc.string({ maxLength: 40 }),
  fc
    .constantFrom(0, 1, -1, 2 ** 53 - 1, 2 ** 53 + 2, 2 ** 63, 1.5, 1e308)
    .map((p) => Buffer.from(JSON.stringify({ p })).toString('base64url')),
  fc.jsonValue({ maxDepth: 2 }).map((v) => Buffer.from(safeStringify(v)).toString('base64url')),
);
const pageSize = fc.oneof(
  fc.integer({ min: -5, max: 600 }),
  fc.constantFrom(0, 1, 500, 501, 2 ** 31, 2 ** 53 + 2, 1e308, -1e308),
);
const configKey = fc.oneof(
  fc
    .array(
      edgyText(30).filter((s) => !s.includes(':') && s.trim() !== ''),
      { minLength: 1, maxLength: 4 },
    )
    .map((s) => s.join(':')),
  fc.constantFrom('A', 'x'.repeat(512), `${'a:'.repeat(255)}b`),
);
const username = fc
  .oneof(
    fc.stringMatching(/^[^\s/]{1,30}$/),
    fc.constantFrom('fuzzvictim', 'nobody', 'Ünïcödé', 'a\u0000b', 'x'.repeat(200)),
  )
  .filter((name) => !name.toLowerCase().startsWith('admin'));
const password = fc.oneof(
  fc.string({ minLength: 8, maxLength: 40 }),
  fc.constantFrom('\u0000'.repeat(8), 'p'.repeat(1024)),
);

// ---------------------------------------------------------------------------------------------
// Routes: path templates, the valid values of every body field, and how requests break them.

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD' | 'OPTIONS';
type AuthKind = 'admin' | 'developer' | 'none' | 'garbage' | 'disposable';

interface Route {
  readonly method: Method;
  /** Path template; `{name}` placeholders take a segment from VALID_SEGMENTS or MESSY_SEGMENTS. */
  readonly path: string;
  /** Valid values of each body field (the body is an object of them). */
  readonly fields?: Record<string, fc.Arbitrary<unknown>>;
  /** Fields that may be left out of a valid body. */
  readonly optional?: readonly string[];
  /** A valid body that is not an object of fields (the batch value set). */
  readonly body?: fc.Arbitrary<unknown>;
}

const serviceFields = {
  name: edgyText(200),
  description: nullable(edgyText(4000)),
  repositoryUrl: nullable(fc.webUrl({ withQueryParameters: true, withFragments: true })),
  contactEmail: nullable(fc.emailAddress()),
};
const versionFields = { versionLabel: edgyText(200), description: nullable(edgyText(4000)) };
const entryCreateFields = {
  key: configKey,
  name: edgyText(200),
  rawValue: anyRawValue,
  valueType: fc.integer({ min: 0, max: 8 }),
  enumDefinition: nullable(fc.constantFrom(ENUM_DEFINITION, 'a', ' | ', 'x'.repeat(4000))),
  description: nullable(edgyText(4000)),
  groupName: nullable(edgyText(200)),
  groupDescription: nullable(edgyText(4000)),
};
const entryUpdateFields = {
  name: entryCreateFields.name,
  rawValue: entryCreateFields.rawValue,
  enumDefinition: entryCreateFields.enumDefinition,
  description: entryCreateFields.description,
  groupName: entryCreateFields.groupName,
  groupDescription: entryCreateFields.groupDescription,
  generation: fc.oneof(
    { arbitrary: generationRef, weight: 4 },
    { arbitrary: fc.constantFrom(...ENTRY_TYPES).map((t) => new Ref(`staleGeneration${t}`)), weight: 1 },
  ),
};

/** A batch naming real entries once each, with their current generations and fitting values. */
const validBatch = fc
  .subarray([...ENTRY_TYPES], { minLength: 1 })
  .chain((types) =>
    fc.tuple(
      ...types.map((t) =>
        validRawValue(t).map((rawValue) => ({
          id: new Ref(`entry${t}`),
          rawValue,
          generation: new Ref(`generation${t}`),
        })),
      ),
    ),
  )
  .chain((items) => fc.shuffledSubarray(items, { minLength: items.length }));
const batchItemMessy = fc.record(
  {
    id: fc.oneof(entryRef, fc.uuid()),
    rawValue: fc.oneof(anyRawValue, wrongValue),
    generation: fc.oneof(generationRef, fc.integer({ min: -2, max: 5 }), wrongValue),
  },
  { requiredKeys: [] },
);
const messyBatch: fc.Arbitrary<unknown> = fc.oneof(
  // One entry changed meanwhile: 409.
  fc
    .tuple(validBatch, fc.nat())
    .map(([items, n]) =>
      items.map((item, i) =>
        i === n % items.length
          ? { ...item, generation: new Ref(`staleGeneration${item.id.name.slice(5)}` as RefName) }
          : item,
      ),
    ),
  fc.array(batchItemMessy, { minLength: 1, maxLength: 5 }),
  fc.constantFrom([], new ManyItems(1000), new ManyItems(1001)),
  entryRef.map((id) => [
    { id, rawValue: null, generation: 1 },
    { id, rawValue: null, generation: 1 },
  ]),
);

const ROUTE_GROUPS: ReadonlyArray<{ name: string; routes: readonly Route[]; weight?: number; authRoutes?: boolean }> = [
  {
    name: 'services',
    routes: [
      {
        method: 'POST',
        path: '/api/services/search',
        fields: { name: nullable(edgyText(200)), pageSize, pageToken },
        optional: ['name', 'pageSize', 'pageToken'],
      },
      {
        method: 'POST',
        path: '/api/services',
        fields: serviceFields,
        optional: ['description', 'repositoryUrl', 'contactEmail'],
      },
      { method: 'GET', path: '/api/services/{service}' },
      {
        method: 'PUT',
        path: '/api/services/{service}',
        fields: serviceFields,
        optional: ['description', 'repositoryUrl', 'contactEmail'],
      },
      { method: 'DELETE', path: '/api/services/{service}' },
    ],
  },
  {
    name: 'members',
    routes: [
      { method: 'GET', path: '/api/services/{service}/members' },
      {
        method: 'POST',
        path: '/api/services/{service}/members',
        fields: { userId: fc.oneof(fc.emailAddress(), edgyText(320)) },
      },
      { method: 'DELETE', path: '/api/services/{service}/members/{member}' },
    ],
  },
  {
    name: 'versions',
    routes: [
      { method: 'GET', path: '/api/configversions/{service}' },
      { method: 'POST', path: '/api/configversions/{service}', fields: versionFields, optional: ['description'] },
      { method: 'GET', path: '/api/configversions/{service}/{version}' },
      {
        method: 'PUT',
        path: '/api/configversions/{service}/{version}',
        fields: versionFields,
        optional: ['description'],
      },
      { method: 'DELETE', path: '/api/configversions/{service}/{version}' },
    ],
  },
  {
    name: 'entries',
    weight: 1.5,
    routes: [
      { method: 'GET', path: '/api/configentries/{service}/{version}' },
      {
        method: 'POST',
        path: '/api/configentries/{service}/{version}',
        fields: entryCreateFields,
        optional: ['name', 'rawValue', 'enumDefinition', 'description', 'groupName', 'groupDescription'],
      },
      // Listed twice: the batch value set is the busiest route and has the most rules.
      { method: 'PUT', path: '/api/configentries/{service}/{version}/set', body: validBatch },
      { method: 'PUT', path: '/api/configentries/{service}/{version}/set', body: validBatch },
      {
        method: 'PUT',
        path: '/api/configentries/{service}/{version}/{entry}',
        fields: entryUpdateFields,
        optional: ['name', 'rawValue', 'enumDefinition', 'description', 'groupName', 'groupDescription'],
      },
      { method: 'DELETE', path: '/api/configentries/{service}/{version}/{entry}' },
    ],
  },
  {
    name: 'audit logs',
    routes: [
      {
        method: 'POST',
        path: '/api/auditlogs/search',
        fields: {
          serviceId: fc.oneof(fc.constant(new Ref('service')), fc.uuid()),
          entityType: nullable(fc.constantFrom('Service', 'version', 'ENTRY', 'mEmBeR')),
          pageSize,
          pageToken,
        },
        optional: ['entityType', 'pageSize', 'pageToken'],
      },
    ],
  },
  {
    name: 'users',
    // Creating a user or changing a password hashes with PBKDF2 (310000 rounds): fewer runs.
    weight: 0.5,
    routes: [
      { method: 'GET', path: '/api/users' },
      {
        method: 'POST',
        path: '/api/users',
        fields: { username, password, role: fc.constantFrom('admin', 'developer') },
      },
      { method: 'GET', path: '/api/users/{user}' },
      {
        method: 'PUT',
        path: '/api/users/{user}',
        fields: { password, role: fc.constantFrom('admin', 'developer') },
        optional: ['password', 'role'],
      },
      { method: 'DELETE', path: '/api/users/{user}' },
    ],
  },
  {
    name: 'sign-in and identity',
    authRoutes: true,
    weight: 0.5,
    routes: [
      { method: 'POST', path: '/auth/login', fields: { username, password } },
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
// Path segments, query strings, content types, bodies

/** Segments of a valid request. */
const VALID_SEGMENTS: Record<string, fc.Arbitrary<Ref | string>> = {
  service: fc.constant(new Ref('service')),
  version: fc.constant(new Ref('version')),
  entry: entryRef,
  member: fc.oneof(fc.constant(new Ref('member')), fc.emailAddress().map(encodeURIComponent)),
  user: fc.constantFrom(new Ref('user'), 'nobody'),
};

/** Segments of any request: real ids (also of the wrong parent), random UUIDs and junk. */
function messySegment(real: fc.Arbitrary<Ref | string>): fc.Arbitrary<Ref | Big | string> {
  return fc.oneof(
    { arbitrary: real, weight: 5 },
    { arbitrary: fc.uuid(), weight: 2 },
    { arbitrary: fc.uuid().map((u) => u.toUpperCase()), weight: 1 },
    { arbitrary: fc.string().map(encodeURIComponent), weight: 2 },
    { arbitrary: fc.string({ unit: 'grapheme' }).map(encodeURIComponent), weight: 1 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map(encodeURIComponent), weight: 1 },
    { arbitrary: fc.constantFrom(99, 100, 101, 1000, 5000).map((n) => new Big(n, 'a')), weight: 1 },
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

const MESSY_SEGMENTS: Record<string, fc.Arbitrary<Ref | Big | string>> = {
  service: messySegment(fc.constantFrom(new Ref('service'), new Ref('otherService'))),
  version: messySegment(fc.constantFrom(new Ref('version'), new Ref('otherVersion'))),
  entry: messySegment(entryRef),
  member: messySegment(VALID_SEGMENTS.member as fc.Arbitrary<Ref | string>),
  // Never the admin account: deleting or demoting it would end the run.
  user: messySegment(VALID_SEGMENTS.user as fc.Arbitrary<Ref | string>).filter(
    (s) => typeof s !== 'string' || !safeDecode(s).trim().toLowerCase().startsWith('admin'),
  ),
};

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const messyQuery = fc.oneof(
  { arbitrary: fc.constant(''), weight: 3 },
  { arbitrary: fc.string().map((s) => `?${encodeURIComponent(s)}`), weight: 1 },
  {
    arbitrary: fc
      .dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 20 }))
      .map((d) => `?${new URLSearchParams(d).toString()}`),
    weight: 1,
  },
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

const messyContentType = fc.constantFrom(
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
);

const MESSY_TEXT = [
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
];

type Body = undefined | string | JsonText;

function validBodyOf(route: Route): fc.Arbitrary<unknown> | undefined {
  if (route.body) return route.body;
  if (!route.fields) return undefined;
  const keys = Object.keys(route.fields);
  return fc.record(route.fields, { requiredKeys: keys.filter((k) => !route.optional?.includes(k)) });
}

/** A valid body with one thing wrong: a field of the wrong type or missing, or a stranger added. */
function oneWrong(route: Route, valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const keys = Object.keys(route.fields ?? { id: 0, rawValue: 0, generation: 0 });
  const strangers = ['__proto__', 'constructor', 'id', 'extra', ''];
  return fc
    .tuple(valid, fc.constantFrom(...keys, ...strangers), fc.oneof(wrongValue, fc.constant(undefined)), fc.nat())
    .map(([body, key, value, n]) => {
      const target = Array.isArray(body) ? body[n % Math.max(1, body.length)] : body;
      if (!isPlainObject(target)) return body;
      const changed = copyObject(target);
      if (value === undefined) delete changed[key];
      else Object.defineProperty(changed, key, { value, enumerable: true, writable: true, configurable: true });
      return Array.isArray(body) ? body.map((item) => (item === target ? changed : item)) : changed;
    });
}

function messyBody(route: Route, valid: fc.Arbitrary<unknown> | undefined): fc.Arbitrary<Body> {
  const shaped = valid ? fc.oneof(valid, oneWrong(route, valid), ...(route.body ? [messyBatch] : [])) : fc.constant({});
  return fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 2 },
    { arbitrary: shaped.map((v) => new JsonText(v)), weight: 6 },
    { arbitrary: shaped.map((v) => new JsonText([v])), weight: 1 },
    { arbitrary: fc.anything({ maxDepth: 3 }).map((v) => new JsonText(v)), weight: 2 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => new JsonText(v)), weight: 2 },
    { arbitrary: fc.json({ maxDepth: 3 }), weight: 1 },
    { arbitrary: fc.tuple(shaped, fc.nat()).map(([v, n]) => new JsonText(v, n)), weight: 2 },
    { arbitrary: fc.constantFrom(...MESSY_TEXT), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 50 }), weight: 1 },
    // Over the 1 MiB body limit.
    { arbitrary: fc.constant(new JsonText({ name: new Big(1024 * 1024 + 10) })), weight: 1 },
  );
}

interface RequestSpec {
  route: string;
  mode: 'valid' | 'one mutation' | 'chaos';
  method: Method;
  path: Array<string | Ref | Big>;
  query: string;
  auth: AuthKind;
  contentType: string | null;
  body: Body;
}

function requestArb(routes: readonly Route[], authRoutes: boolean): fc.Arbitrary<RequestSpec> {
  // The admin session is never sent to sign-in and sign-out: signing out would end it.
  const validAuth = authRoutes
    ? fc.constantFrom<AuthKind>('none', 'disposable')
    : fc.oneof(
        { arbitrary: fc.constant<AuthKind>('admin'), weight: 6 },
        { arbitrary: fc.constant<AuthKind>('developer'), weight: 1 },
      );
  const messyAuth = authRoutes
    ? fc.constantFrom<AuthKind>('none', 'garbage', 'disposable', 'developer')
    : fc.constantFrom<AuthKind>('admin', 'none', 'garbage', 'developer');

  return fc.constantFrom(...routes).chain((route) => {
    const parts = route.path.split(/(\{\w+\})/).filter(Boolean);
    const segmentsFrom = (table: Record<string, fc.Arbitrary<Ref | Big | string>>) =>
      fc.tuple(
        ...parts.map((p) => {
          const name = /^\{(\w+)\}$/.exec(p)?.[1];
          if (!name) return fc.constant<Ref | Big | string>(p);
          const seg = table[name];
          if (!seg) throw new Error(`no segment arbitrary for ${name}`);
          return seg;
        }),
      );
    const validBody = validBodyOf(route);
    const valid = fc.record({
      route: fc.constant(`${route.method} ${route.path}`),
      mode: fc.constant<RequestSpec['mode']>('valid'),
      method: fc.constant(route.method),
      path: segmentsFrom(VALID_SEGMENTS),
      query: fc.constant(''),
      auth: validAuth,
      contentType: fc.constant(validBody ? 'application/json' : null),
      body: validBody ? validBody.map((v) => new JsonText(v)) : fc.constant(undefined),
    });
    const chaos = fc.record({
      route: fc.constant(`${route.method} ${route.path}`),
      mode: fc.constant<RequestSpec['mode']>('chaos'),
      method: fc.oneof(
        { arbitrary: fc.constant(route.method), weight: 9 },
        { arbitrary: fc.constantFrom<Method>('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'), weight: 1 },
      ),
      path: segmentsFrom(MESSY_SEGMENTS),
      query: messyQuery,
      auth: messyAuth,
      contentType: fc.oneof(
        { arbitrary: fc.constant<string | null>('application/json'), weight: 3 },
        { arbitrary: messyContentType, weight: 1 },
      ),
      body: messyBody(route, validBody),
    });
    const wrongBody = validBody ? oneWrong(route, validBody).map((b): Body => new JsonText(b)) : fc.constant(undefined);
    const mutated = fc
      .tuple(
        valid,
        chaos,
        wrongBody,
        fc.constantFrom('path', 'body', 'body', 'body', 'contentType', 'query', 'auth', 'method'),
        fc.nat(),
      )
      .map(([v, c, b, what, n]): RequestSpec => {
        const out: RequestSpec = { ...v, mode: 'one mutation' };
        if (what === 'path') {
          const holes = v.path
            .map((p, i) => (typeof p === 'string' && p.startsWith('/') ? -1 : i))
            .filter((i) => i >= 0);
          const index = holes.length > 0 ? holes[n % holes.length] : undefined;
          if (index !== undefined) out.path = v.path.map((p, i) => (i === index ? (c.path[i] ?? p) : p));
        } else if (what === 'body' && validBody) {
          out.body = b;
        } else if (what === 'contentType') {
          out.contentType = c.contentType === 'application/json' ? 'text/plain' : c.contentType;
        } else if (what === 'query') {
          out.query = c.query;
        } else if (what === 'auth') {
          out.auth = c.auth;
        } else if (what === 'method') {
          out.method = c.method;
        }
        return out;
      });
    return fc.oneof(valid, mutated, chaos);
  });
}

// ---------------------------------------------------------------------------------------------

const DEV_USER = 'fuzzdev';
const DEV_PASSWORD = 'fuzzdev-password-for-tests';
/** The user that path ids of /api/users name: it may be changed or deleted, and is re-created. */
const VICTIM_USER = 'fuzzvictim';
const MEMBER = 'fuzzmember';

interface LoggedError {
  readonly reqId: string | undefined;
  readonly message: string;
}

/** Errors the server logged: an unexpected failure always logs one. */
function errorLogCollector() {
  const lines: LoggedError[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        try {
          const parsed = JSON.parse(line) as { reqId?: string; msg?: string; err?: { message?: string } };
          lines.push({ reqId: parsed.reqId, message: `${parsed.msg ?? ''}: ${parsed.err?.message ?? ''}` });
        } catch {
          lines.push({ reqId: undefined, message: line.slice(0, 300) });
        }
      }
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
  const cookies: Record<AuthKind, string | null> = {
    admin: null,
    developer: null,
    none: null,
    garbage: 'rc_session=garbage.garbage',
    disposable: null,
  };
  const ids = new Map<string, string>();
  const generations = new Map<number, number>();
  let fixturesStale = true;
  let sessionsStale = true;
  let usersStale = true;
  /** "route → status" counts, printed when FC_VERBOSE is set, to see what the runs reached. */
  const statusCounts = new Map<string, number>();
  async function expectStatus<T = any>(
    res: Promise<{ status: number; body: T; text: string }>,
    expected: number[],
  ): Promise<T> {
    const r = await res;
    if (!expected.includes(r.status)) throw new Error(`fixture request answered ${r.status}: ${r.text}`);
    return r.body;
  }

  let developerMade = false;
  /** A new session of the developer, or null when it does not sign in as one (changed, deleted). */
  async function developerSession(): Promise<string | null> {
    const client = server.client();
    const res = await client.post('/auth/login', { username: DEV_USER, password: DEV_PASSWORD });
    const isDeveloper = res.status === 200 && JSON.stringify(res.body.roles) === '["developer"]';
    return isDeveloper ? client.sessionCookie : null;
  }

  async function signIn(name: string, secret: string): Promise<string> {
    const client = await server.client().login(name, secret);
    if (!client.sessionCookie) throw new Error(`no session cookie for ${name}`);
    return client.sessionCookie;
  }

  /**
   * A service with a version holding one entry of every type and two members, and a second service
   * with a version. Requests that do not depend on each other go together: the fixtures are made
   * again after every successful delete of one of them.
   */
  async function createFixtures(): Promise<void> {
    const [service, other] = await Promise.all([
      expectStatus(admin.post('/api/services', { name: `fuzz ${Date.now()}` }), [201]),
      expectStatus(admin.post('/api/services', { name: `fuzz other ${Date.now()}` }), [201]),
    ]);
    const [version, otherVersion] = await Promise.all([
      expectStatus(admin.post(`/api/configversions/${service.id}`, { versionLabel: '1.0.0' }), [201]),
      expectStatus(admin.post(`/api/configversions/${other.id}`, { versionLabel: '2.0.0' }), [201]),
    ]);
    const defaults: Record<number, string> = {
      0: 'anything',
      1: 'text',
      2: 'true',
      3: '2026-01-01T00:00:00Z',
      4: '01:02:03',
      5: 'red',
      6: '42',
      7: '[1,2]',
      8: '{"a":1}',
    };
    const [entries] = await Promise.all([
      Promise.all(
        ENTRY_TYPES.map((type) =>
          expectStatus(
            admin.post(`/api/configentries/${service.id}/${version.id}`, {
              key: `Fuzz:Type${type}`,
              valueType: type,
              rawValue: defaults[type] ?? null,
              enumDefinition: type === 5 ? ENUM_DEFINITION : null,
            }),
            [201],
          ),
        ),
      ),
      expectStatus(admin.post(`/api/services/${service.id}/members`, { userId: MEMBER }), [201]),
      expectStatus(admin.post(`/api/services/${service.id}/members`, { userId: DEV_USER }), [201]),
    ]);
    ids
      .set('service', service.id)
      .set('version', version.id)
      .set('otherService', other.id)
      .set('otherVersion', otherVersion.id);
    ids.set('member', MEMBER).set('user', VICTIM_USER);
    for (const [i, type] of ENTRY_TYPES.entries()) ids.set(`entry${type}`, entries[i].id);
    fixturesStale = false;
  }

  async function refresh(): Promise<void> {
    if (sessionsStale) {
      // The developer is made (or reset) only when it cannot sign in as one: a creation or a
      // password change hashes with PBKDF2, and sign-outs make new sessions needed often.
      const sessions = developerMade ? await Promise.all([developerSession(), developerSession()]) : [null, null];
      if (sessions.includes(null)) {
        const created = await admin.post('/api/users', {
          username: DEV_USER,
          password: DEV_PASSWORD,
          role: 'developer',
        });
        if (created.status !== 201)
          await expectStatus(admin.put(`/api/users/${DEV_USER}`, { password: DEV_PASSWORD, role: 'developer' }), [200]);
        developerMade = true;
        [cookies.developer, cookies.disposable] = await Promise.all([
          signIn(DEV_USER, DEV_PASSWORD),
          signIn(DEV_USER, DEV_PASSWORD),
        ]);
      } else {
        [cookies.developer, cookies.disposable] = sessions;
      }
      sessionsStale = false;
    }
    if (usersStale) {
      // Each creation hashes its password (PBKDF2): made again only after a user was deleted.
      await Promise.all([
        expectStatus(
          admin.post('/api/users', { username: VICTIM_USER, password: 'victim-password-for-tests', role: 'developer' }),
          [201, 409],
        ),
        expectStatus(
          admin.post('/api/users', { username: MEMBER, password: 'fuzzmember-password-for-tests', role: 'developer' }),
          [201, 409],
        ),
      ]);
      usersStale = false;
    }
    if (fixturesStale) await createFixtures();
  }

  async function loadGenerations(): Promise<void> {
    generations.clear();
    const res = await admin.get(`/api/configentries/${ids.get('service')}/${ids.get('version')}`);
    if (res.status !== 200) return;
    for (const entry of res.body as Array<{ id: string; generation: number }>) {
      const type = ENTRY_TYPES.find((t) => ids.get(`entry${t}`) === entry.id);
      if (type !== undefined) generations.set(type, entry.generation);
    }
  }

  const resolveRef: Resolver = (name) => {
    const gen = /^(generation|staleGeneration)(\d)$/.exec(name);
    if (gen) return (generations.get(Number(gen[2])) ?? 1) - (gen[1] === 'staleGeneration' ? 1 : 0);
    const id = ids.get(name);
    if (id === undefined) throw new Error(`unknown fixture ${name}`);
    return id;
  };

  function describeRequest(spec: RequestSpec, path: string, body: string | undefined): string {
    const preview =
      body === undefined ? '(none)' : body.length > 300 ? `${body.slice(0, 300)}… (${body.length} chars)` : body;
    const shownPath = path.length > 300 ? `${path.slice(0, 300)}… (${path.length} chars)` : path;
    return `${spec.method} ${shownPath} [auth ${spec.auth}, content-type ${spec.contentType ?? '(none)'}] body: ${preview}`;
  }

  /** Sends one request and checks the property; throws with a reproducer when it does not hold. */
  async function check(spec: RequestSpec): Promise<void> {
    await refresh();
    if (needsGenerations(spec.body)) await loadGenerations();

    const path =
      spec.path
        .map((p) =>
          p instanceof Ref
            ? encodeURIComponent(String(resolveRef(p.name)))
            : p instanceof Big
              ? String(resolve(p, resolveRef))
              : p,
        )
        .join('') + spec.query;
    let body: string | undefined;
    if (spec.body instanceof JsonText) {
      const text = safeStringify(resolve(spec.body.value, resolveRef));
      body = spec.body.cut === undefined ? text : text.slice(0, spec.body.cut % (text.length + 1));
    } else {
      body = spec.body;
    }
    const headers: Record<string, string> = {};
    if (spec.contentType !== null && body !== undefined) headers['content-type'] = spec.contentType;
    const cookie = cookies[spec.auth];
    if (cookie) headers.cookie = cookie;

    const what = describeRequest(spec, path, body);
    let res;
    try {
      res = await pool.request({ method: spec.method, path, headers, body });
    } catch (error) {
      throw new Error(`no answer (${String(error)}) to ${what}`);
    }
    const text = await res.body.text();
    const status = res.statusCode;
    const type = String(res.headers['content-type'] ?? '');
    const key = `${spec.route} → ${status}`;
    statusCounts.set(key, (statusCounts.get(key) ?? 0) + 1);

    if (status >= 500) throw new Error(`answered ${status} ${text.slice(0, 500)} to ${what}`);
    if (status >= 400 && !type.startsWith('application/problem+json')) {
      throw new Error(`answered ${status} with content-type "${type}" to ${what}`);
    }
    if (status >= 400 && spec.method !== 'HEAD') {
      let problem: { status?: unknown; type?: unknown; title?: unknown; detail?: unknown; errors?: unknown };
      try {
        problem = JSON.parse(text) as typeof problem;
      } catch {
        throw new Error(`answered ${status} with a body that is not JSON (${text.slice(0, 200)}) to ${what}`);
      }
      if (problem.status !== status)
        throw new Error(`answered ${status} with problem status ${String(problem.status)} to ${what}`);
      if (typeof problem.type !== 'string' || typeof problem.title !== 'string' || typeof problem.detail !== 'string') {
        throw new Error(`answered ${status} with an incomplete problem ${text.slice(0, 300)} to ${what}`);
      }
      if ('stack' in problem || /\n\s+at /.test(text)) throw new Error(`answered a stack trace to ${what}`);
    } else if (status < 400 && type.includes('json') && text && spec.method !== 'HEAD') {
      JSON.parse(text); // throws on a broken success body
    }

    // A successful delete or sign-out may have removed what later runs refer to.
    if (status < 300 && spec.method === 'DELETE') {
      if (spec.route.startsWith('DELETE /api/users/')) usersStale = true;
      else if (spec.route.startsWith('DELETE /api/')) fixturesStale = true;
    }
    if (status < 300 && spec.route === 'POST /auth/logout' && (spec.auth === 'developer' || spec.auth === 'disposable'))
      sessionsStale = true;
  }

  beforeAll(async () => {
    server = await startTestServer({ kind, deps: { logger: errorLog.logger } });
    admin = await server.admin();
    cookies.admin = admin.sessionCookie;
    pool = new Pool(server.baseUrl, { connections: 4, headersTimeout: 15_000, bodyTimeout: 15_000 });
    await refresh();
  });

  afterAll(async () => {
    if (process.env.FC_VERBOSE) {
      const lines = [...statusCounts].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `  ${k}: ${n}`);
      process.stdout.write(`answers on ${kind}:\n${lines.join('\n')}\n`);
    }
    await pool?.close();
    await server?.close();
  });

  it.each(ROUTE_GROUPS.map((group, index) => ({ ...group, index })))(
    'never answers 5xx and answers every error with problem details: $name',
    async ({ routes, weight, authRoutes, index }) => {
      await fc.assert(fc.asyncProperty(requestArb(routes, authRoutes ?? false), check), {
        seed: SEED + index,
        numRuns: runsFor(kind, weight),
      });
    },
    180_000,
  );

  // Fastify's router answers these before any hook or error handler, unless frameworkErrors is set.
  it('answers problem details to a malformed percent-encoding and an over-long path parameter', async () => {
    for (const [path, status] of [
      ['/api/services/%zz', 400],
      [`/api/services/${'a'.repeat(1000)}`, 414],
    ] as const) {
      const res = await pool.request({ method: 'GET', path, headers: { cookie: cookies.admin ?? '' } });
      const text = await res.body.text();
      expect(res.statusCode).toBe(status);
      expect(String(res.headers['content-type'])).toContain('application/problem+json');
      expect(JSON.parse(text)).toMatchObject({ status });
    }
  });

  // PostgreSQL text cannot hold U+0000; both databases must refuse it alike, before any query.
  it('refuses text holding U+0000 anywhere with 400 and stores nothing', async () => {
    const client = await server.admin();
    const service = await client.post('/api/services', { name: 'nul-check' });
    const version = await client.post(`/api/configversions/${service.body.id}`, { versionLabel: '1' });
    const entries = `/api/configentries/${service.body.id}/${version.body.id}`;
    const entry = await client.post(entries, { key: 'A', valueType: 1, rawValue: 'x' });
    const answers = [
      await client.post('/api/services', { name: 'a\u0000b' }),
      await client.post('/api/services/search', { name: 'a\u0000b' }),
      await client.post(`/api/configversions/${service.body.id}`, { versionLabel: 'a\u0000b' }),
      await client.post(entries, { key: 'B', valueType: 1, rawValue: 'a\u0000b' }),
      await client.put(`${entries}/set`, [{ id: entry.body.id, rawValue: 'a\u0000b', generation: 1 }]),
      await client.put(`${entries}/${entry.body.id}`, { description: 'a\u0000b', generation: 1 }),
      await client.delete(`/api/services/${service.body.id}/members/a%00b`),
      await client.get('/api/users/a%00b'),
      await server.client().post('/auth/login', { username: 'a\u0000b', password: 'whatever' }),
    ];
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 400));
    expect(answers.every((a) => a.headers.get('content-type')?.startsWith('application/problem+json'))).toBe(true);
    const versions = await client.get(`/api/configversions/${service.body.id}`);
    expect(versions.body).toHaveLength(1);
    const stored = await client.get(entries);
    expect(stored.body).toMatchObject([{ key: 'A', rawValue: 'x', description: null, generation: 1 }]);
  });

  it('still serves health checks and the normal flow afterwards, with nothing logged as an error', async () => {
    expect((await server.client().get('/healthz')).status).toBe(200);
    expect((await server.client().get('/readyz')).status).toBe(200);

    const fresh = await server.admin();
    const service = await fresh.post('/api/services', { name: 'after-the-storm' });
    expect(service.status).toBe(201);
    const version = await fresh.post(`/api/configversions/${service.body.id}`, { versionLabel: '1.0' });
    expect(version.status).toBe(201);
    const entry = await fresh.post(`/api/configentries/${service.body.id}/${version.body.id}`, {
      key: 'Limits:Max',
      valueType: 6,
      rawValue: '1',
    });
    expect(entry.status).toBe(201);
    const set = await fresh.put(`/api/configentries/${service.body.id}/${version.body.id}/set`, [
      { id: entry.body.id, rawValue: '2', generation: entry.body.generation },
    ]);
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject([{ id: entry.body.id, rawValue: '2', generation: 2 }]);
    const listed = await fresh.get(`/api/configentries/${service.body.id}/${version.body.id}`);
    expect(listed.body).toMatchObject([{ key: 'Limits:Max', rawValue: '2', generation: 2 }]);

    expect(errorLog.lines.map((l) => l.message)).toEqual([]);
  });
});

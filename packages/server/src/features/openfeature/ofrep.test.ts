import { OFREPProvider } from '@openfeature/ofrep-provider';
import { OpenFeature, type Client } from '@openfeature/server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneDatabaseKind } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { newMasterKeyFile } from '@realtime-config/test-support/master-key';

const ALLOWED = 'https://app.example.com';
const VERSION = '1.0.0';

/** [key, valueType, rawValue, extra] of the version every test evaluates. */
const ENTRIES: Array<[string, number, string | null, Record<string, unknown>?]> = [
  ['Features:NewCheckout', 2, 'True'],
  ['Payments:TimeoutSeconds', 6, '2.5'],
  ['Payments:Provider', 1, 'Stripe'],
  ['Payments:Mode', 5, 'Live', { enumDefinition: 'Live|Test' }],
  ['Payments:Cutover', 3, '2026-05-01T09:30:00Z'],
  ['Payments:RetryAfter', 4, '00:00:30'],
  ['Payments:Regions', 7, '["eu","us"]'],
  ['Payments:Limits', 8, '{"max":5,"currency":"EUR"}'],
  ['Payments:Unset', 1, null],
  ['Payments:ApiSecret', 1, 'hunter2-secret', { isSecret: true }],
];

describe.each(oneDatabaseKind)('OFREP through the official OpenFeature provider on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;
  let versionId: string;
  let readKey: string;
  let secretsKey: string;
  let registerKey: string;
  let flags: Client;
  let secretFlags: Client;
  const ids = new Map<string, { id: string; generation: number }>();

  const ofrep = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    server.client().post(`/ofrep/v1/evaluate/flags${path}`, body, {
      headers: { authorization: `Bearer ${readKey}`, 'x-rc-version': VERSION, ...headers },
    });

  async function providerClient(name: string, key: string): Promise<Client> {
    const provider = new OFREPProvider({
      baseUrl: server.baseUrl,
      headers: { authorization: `Bearer ${key}`, 'x-rc-version': VERSION },
    });
    await OpenFeature.setProviderAndWait(name, provider);
    return OpenFeature.getClient(name);
  }

  beforeAll(async () => {
    // A secret entry needs a master key (on PostgreSQL there is no data folder to make one in).
    const keyFile = newMasterKeyFile();
    server = await startTestServer({
      kind,
      args: [`--Ofrep:AllowedOrigins=${ALLOWED}`, `--Secrets:MasterKeyFile=${keyFile}`],
    });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: 'ofrep' })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: VERSION })).body.id;
    for (const [key, valueType, rawValue, extra] of ENTRIES) {
      const created = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
        key,
        valueType,
        ...(rawValue === null ? {} : { rawValue }),
        ...extra,
      });
      expect(created.status, created.text).toBe(201);
      ids.set(key, { id: created.body.id, generation: created.body.generation });
    }
    const key = async (scopes: string[]) =>
      (await admin.post(`/api/services/${serviceId}/apikeys`, { name: scopes.join('+'), scopes })).body.key as string;
    readKey = await key(['read']);
    secretsKey = await key(['read', 'secrets']);
    registerKey = await key(['register']);
    flags = await providerClient('ofrep-read', readKey);
    secretFlags = await providerClient('ofrep-secrets', secretsKey);
  });
  afterAll(async () => {
    await OpenFeature.close();
    await server?.close();
  });

  it('evaluates every entry type as its OpenFeature flag type, STATIC, with generation and version id', async () => {
    const bool = await flags.getBooleanDetails('Features:NewCheckout', false);
    expect(bool).toMatchObject({ value: true, reason: 'STATIC', variant: 'value' });
    expect(bool.flagMetadata).toEqual({ generation: ids.get('Features:NewCheckout')?.generation, versionId });
    expect(await flags.getNumberValue('Payments:TimeoutSeconds', 0)).toBe(2.5);
    expect(await flags.getStringValue('Payments:Provider', '')).toBe('Stripe');
    expect(await flags.getStringValue('Payments:Mode', '')).toBe('Live');
    expect(await flags.getStringValue('Payments:Cutover', '')).toBe('2026-05-01T09:30:00Z');
    expect(await flags.getStringValue('Payments:RetryAfter', '')).toBe('00:00:30');
    expect(await flags.getObjectValue('Payments:Regions', [])).toEqual(['eu', 'us']);
    expect(await flags.getObjectValue('Payments:Limits', {})).toEqual({ max: 5, currency: 'EUR' });
  });

  it('answers FLAG_NOT_FOUND and TYPE_MISMATCH with the caller’s default, never throwing', async () => {
    const missing = await flags.getStringDetails('Payments:Nope', 'fallback');
    expect(missing).toMatchObject({ value: 'fallback', errorCode: 'FLAG_NOT_FOUND', reason: 'ERROR' });
    const mismatch = await flags.getNumberDetails('Payments:Provider', 7);
    expect(mismatch).toMatchObject({ value: 7, errorCode: 'TYPE_MISMATCH', reason: 'ERROR' });

    const raw = await ofrep('/Payments:Nope', { context: {} });
    expect(raw.status).toBe(404);
    expect(raw.body).toEqual({
      key: 'Payments:Nope',
      errorCode: 'FLAG_NOT_FOUND',
      errorDetails: expect.any(String),
    });
  });

  it('answers DEFAULT without a value for an entry that has none: the code default applies', async () => {
    const raw = await ofrep('/Payments:Unset', { context: { targetingKey: 'user-1' } });
    expect(raw.status).toBe(200);
    expect(raw.body).toEqual({
      key: 'Payments:Unset',
      reason: 'DEFAULT',
      variant: 'default',
      metadata: { generation: ids.get('Payments:Unset')?.generation, versionId },
    });
    expect(await flags.getStringValue('Payments:Unset', 'code default')).toBe('code default');
  });

  it('never evaluates a secret without the secrets scope', async () => {
    expect(await flags.getStringDetails('Payments:ApiSecret', 'none')).toMatchObject({
      value: 'none',
      errorCode: 'FLAG_NOT_FOUND',
    });
    const bulk = await ofrep('', { context: {} });
    expect(bulk.text).not.toContain('hunter2');
    expect(bulk.body.flags.map((f: { key: string }) => f.key)).not.toContain('Payments:ApiSecret');
    expect(await secretFlags.getStringValue('Payments:ApiSecret', 'none')).toBe('hunter2-secret');
  });

  it('answers 401 without a valid key and 403 for a key without read or a signed-in user', async () => {
    const none = await server.client().post(
      '/ofrep/v1/evaluate/flags/Payments:Provider',
      { context: {} },
      {
        headers: { 'x-rc-version': VERSION },
      },
    );
    expect(none.status).toBe(401);
    expect((await ofrep('/Payments:Provider', {}, { authorization: 'Bearer rck_not-a-key' })).status).toBe(401);
    expect((await ofrep('/Payments:Provider', {}, { authorization: `Bearer ${registerKey}` })).status).toBe(403);
    const session = await admin.post('/ofrep/v1/evaluate/flags', {}, { headers: { 'x-rc-version': VERSION } });
    expect(session.status).toBe(403);
    const client = await providerClient('ofrep-register', registerKey);
    expect(await client.getStringDetails('Payments:Provider', 'd')).toMatchObject({ value: 'd', reason: 'ERROR' });
  });

  it('refuses a bad context (INVALID_CONTEXT), a body that is not JSON (PARSE_ERROR) and a missing version', async () => {
    for (const body of [
      { context: 5 },
      { context: { targetingKey: 5 } },
      { context: { targetingKey: 'x'.repeat(201) } },
    ]) {
      const answer = await ofrep('/Payments:Provider', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body).toMatchObject({ errorCode: 'INVALID_CONTEXT', errorDetails: expect.any(String) });
    }
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`a${i}`, 'v']));
    expect((await ofrep('', { context: many })).body).toMatchObject({ errorCode: 'INVALID_CONTEXT' });
    const parse = await ofrep('', '{"context": ');
    expect(parse.status).toBe(400);
    expect(parse.body).toMatchObject({ errorCode: 'PARSE_ERROR' });
    const noVersion = await ofrep('', { context: {} }, { 'x-rc-version': '' });
    expect(noVersion.status).toBe(400);
    expect(noVersion.body.errorDetails).toContain('x-rc-version');
  });

  it('answers the bulk evaluation with an ETag, 304 while nothing changed, and the change after a REST set', async () => {
    const context = { context: { targetingKey: 'user-7', plan: 'gold', age: 41 } };
    const first = await ofrep('', context);
    expect(first.status).toBe(200);
    expect(first.body.metadata).toEqual({ versionId });
    expect(first.body.flags).toContainEqual({
      key: 'Payments:Provider',
      value: 'Stripe',
      reason: 'STATIC',
      variant: 'value',
      metadata: { generation: ids.get('Payments:Provider')?.generation, versionId },
    });
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^".+"$/);
    const again = await ofrep('', context, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');

    const provider = ids.get('Payments:Provider');
    const set = await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
      { id: provider?.id, rawValue: 'Adyen', generation: provider?.generation },
    ]);
    expect(set.status, set.text).toBe(200);
    await server.flushChanges();
    const changed = await ofrep('', context, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(changed.body.flags).toContainEqual(expect.objectContaining({ key: 'Payments:Provider', value: 'Adyen' }));
    expect(await flags.getStringValue('Payments:Provider', '')).toBe('Adyen');
  });

  it('answers an unknown version with no flags', async () => {
    const bulk = await ofrep('', { context: {} }, { 'x-rc-version': '9.9.9' });
    expect(bulk.status).toBe(200);
    expect(bulk.body).toEqual({ flags: [], metadata: {} });
  });

  it('grants CORS to the configured origins on /ofrep only', async () => {
    const preflight = (origin: string, path = '/ofrep/v1/evaluate/flags') =>
      fetch(`${server.baseUrl}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type,x-rc-version',
        },
      });
    const allowed = await preflight(ALLOWED);
    expect(allowed.status).toBeLessThan(300);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
    expect(allowed.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('x-rc-version');

    const denied = await preflight('https://evil.example.com');
    expect(denied.headers.get('access-control-allow-origin')).toBeNull();
    const management = await preflight(ALLOWED, '/api/services');
    expect(management.headers.get('access-control-allow-origin')).toBeNull();

    const answer = await ofrep('', { context: {} }, { origin: ALLOWED });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(answer.headers.get('access-control-expose-headers')).toContain('ETag');
    const foreign = await ofrep('', { context: {} }, { origin: 'https://evil.example.com' });
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('is in the OpenAPI document', async () => {
    const document = (await server.client().get('/api/openapi.json')).body;
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/ofrep/v1/evaluate/flags', '/ofrep/v1/evaluate/flags/{key}']),
    );
  });

  it('answers TARGETING_MATCH for a context whose attributes an override names, STATIC for others', async () => {
    const mode = ids.get('Payments:Mode') as { id: string; generation: number };
    const set = await admin.put(`/api/configentries/${serviceId}/${versionId}/${mode.id}/overrides`, {
      overrides: [
        { labels: { region: 'eu', tier: 'gold' }, rawValue: 'Live' },
        { labels: { region: 'eu' }, rawValue: 'Test' },
      ],
      generation: mode.generation,
    });
    expect(set.status, set.text).toBe(200);
    const generation = mode.generation + 1;
    ids.set('Payments:Mode', { id: mode.id, generation });

    const eu = await flags.getStringDetails('Payments:Mode', '', { targetingKey: 'user-7', region: 'eu' });
    expect(eu).toMatchObject({ value: 'Test', reason: 'TARGETING_MATCH', variant: 'override-1' });
    expect(eu.flagMetadata).toEqual({ generation, versionId });
    // The first override in list order wins.
    const gold = await flags.getStringDetails('Payments:Mode', '', { targetingKey: 'u', region: 'eu', tier: 'gold' });
    expect(gold).toMatchObject({ value: 'Live', reason: 'TARGETING_MATCH', variant: 'override-0' });
    const us = await flags.getStringDetails('Payments:Mode', '', { targetingKey: 'user-8', region: 'us' });
    expect(us).toMatchObject({ value: 'Live', reason: 'STATIC' });
    // Attributes that are not text are not labels.
    const numeric = await ofrep('/Payments:Mode', { context: { targetingKey: 'u', region: 7 } });
    expect(numeric.body).toMatchObject({ value: 'Live', reason: 'STATIC' });
    // Bulk answers are kept per group of contexts that resolve alike: each context gets its own.
    const modeIn = async (context: Record<string, string>) => {
      const bulk = await ofrep('', { context });
      return bulk.body.flags.find((f: { key: string }) => f.key === 'Payments:Mode');
    };
    expect(await modeIn({ targetingKey: 'a', region: 'eu' })).toMatchObject({
      value: 'Test',
      reason: 'TARGETING_MATCH',
    });
    expect(await modeIn({ targetingKey: 'b', region: 'us' })).toMatchObject({ value: 'Live', reason: 'STATIC' });
    expect(await modeIn({ targetingKey: 'c', region: 'eu' })).toMatchObject({
      value: 'Test',
      reason: 'TARGETING_MATCH',
    });
    expect(await modeIn({})).toMatchObject({ value: 'Live', reason: 'STATIC' });
    // The same as the instance with those labels gets (GET …/resolve).
    const resolved = await admin.get(`/api/configversions/${serviceId}/${versionId}/resolve?labels=region%3Deu`);
    const entry = resolved.body.entries.find((e: { key: string }) => e.key === 'Payments:Mode');
    expect(entry).toMatchObject({ rawValue: 'Test', source: 'override', overrideIndex: 1, generation });
  });
});

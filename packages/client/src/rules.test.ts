import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  array,
  ConfigError,
  connect,
  defineConfig,
  group,
  json,
  number,
  staticConfig,
  string,
  type LiveConfig,
} from './index.js';
import {
  databaseKinds,
  entriesByKey,
  recordingLogger,
  setValues,
  startFixture,
  until,
  type Fixture,
} from './test-support/fixtures.js';

const thrown = (fn: () => unknown): ConfigError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('nothing was thrown');
};

describe('rules in the builders', () => {
  it('turns each builder’s rules into the JSON Schema it registers', () => {
    expect(number({ min: 1, max: 300, integer: true }).schema).toEqual({ type: 'integer', minimum: 1, maximum: 300 });
    expect(number({ default: 3 }).schema).toBeUndefined();
    expect(string({ minLength: 1, maxLength: 64, pattern: '^https://', format: 'uri' }).schema).toEqual({
      minLength: 1,
      maxLength: 64,
      pattern: '^https://',
      format: 'uri',
    });
    expect(array<string>({ minItems: 1, maxItems: 3, items: { format: 'hostname' } }).schema).toEqual({
      minItems: 1,
      maxItems: 3,
      items: { format: 'hostname' },
    });
    const schema = { type: 'object', required: ['max'] };
    expect(json<{ max: number }>({ schema }).schema).toEqual(schema);
  });

  it('refuses rules that make no valid schema, naming the builder', () => {
    expect(thrown(() => string({ pattern: '(' }))).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(thrown(() => string({ pattern: '(' })).message).toMatch(/^string\(\)/);
    expect(thrown(() => number({ min: 'one' as unknown as number })).message).toMatch(/^number\(\)/);
    expect(thrown(() => string({ format: 'phone' as 'uri' })).message).toMatch(/format/);
    expect(thrown(() => json({ schema: { $ref: 'https://example.com/s.json' } })).message).toMatch(/^json\(\)/);
  });

  it('refuses, at defineConfig, a default that breaks its own rules, naming the key and the rule', () => {
    const error = thrown(() =>
      defineConfig({ Http: group({ TimeoutSeconds: number({ default: 3000, min: 1, max: 300 }) }) }),
    );
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.key).toBe('Http:TimeoutSeconds');
    expect(error.message).toMatch(/Http:TimeoutSeconds.*must be <= 300/);
    expect(() => defineConfig({ Http: group({ Url: string({ default: 'http://x', pattern: '^https://' }) }) })).toThrow(
      /Http:Url/,
    );
    expect(() =>
      defineConfig({ Http: group({ Key: string({ default: 'short', minLength: 10, secret: true }) }) }),
    ).toThrow(/^(?!.*short).*Http:Key/);
    // A default that meets them, and a setting without a default, are fine.
    const schema = defineConfig({ Http: group({ A: number({ default: 30, max: 300 }), B: number({ max: 1 }) }) });
    expect(staticConfig(schema).values.Http).toEqual({ A: 30, B: null });
  });

  it('checks a raw value against the rules as it parses it', () => {
    const port = number({ min: 1, max: 65535, integer: true });
    expect(port.parse('8080')).toBe(8080);
    expect(thrown(() => port.parse('80.5'))).toMatchObject({ code: 'INVALID_VALUE' });
    expect(thrown(() => port.parse('70000')).message).toMatch(/must be <= 65535/);
  });
});

describe.each(databaseKinds)('rules registered by the SDK on %s', (kind) => {
  let fx: Fixture;
  let config: LiveConfig<typeof schema>;
  let serviceId: string;
  const errors: ConfigError[] = [];
  const logger = recordingLogger();
  const schema = defineConfig({
    Http: group({
      TimeoutSeconds: number({ default: 30, min: 1, max: 300, integer: true }),
      Endpoint: string({ default: 'https://api.example.com', pattern: '^https://' }),
    }),
  });

  beforeAll(async () => {
    fx = await startFixture(kind);
    serviceId = await fx.service();
    config = await connect({ url: fx.url, serviceId, version: '1.0.0', schema, logger });
    config.on('error', (error) => errors.push(error));
  });
  afterAll(async () => {
    await config?.close();
    await fx?.close();
  });

  it('registers its rules as the entries’ schemas; the server then refuses a REST set that breaks them', async () => {
    const entries = await entriesByKey(fx.admin, serviceId, config.versionId);
    expect((entries['Http:TimeoutSeconds'] as unknown as { schema: unknown }).schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 300,
    });
    const timeout = entries['Http:TimeoutSeconds']!;
    const refused = await fx.admin.put(`/api/configentries/${serviceId}/${config.versionId}/set`, [
      { id: timeout.id, rawValue: '3000', generation: timeout.generation },
    ]);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.violations).toEqual([
      expect.objectContaining({ key: 'Http:TimeoutSeconds', keyword: 'maximum', message: 'must be <= 300' }),
    ]);
    await setValues(fx.admin, serviceId, config.versionId, { 'Http:TimeoutSeconds': '45' });
    await until(() => config.values.Http.TimeoutSeconds === 45, 'the value set');
  });

  it('keeps the last good value of a received value that breaks its declared rules, and reports it', async () => {
    // The server's schema removed (an owner did), so the server lets the value through; the SDK still holds to its rules.
    const entries = await entriesByKey(fx.admin, serviceId, config.versionId);
    const endpoint = entries['Http:Endpoint']!;
    const cleared = await fx.admin.put(`/api/configentries/${serviceId}/${config.versionId}/${endpoint.id}`, {
      schema: null,
      generation: endpoint.generation,
    });
    expect(cleared.status, cleared.text).toBe(200);
    await setValues(fx.admin, serviceId, config.versionId, { 'Http:Endpoint': 'http://plain.example.com' });
    await until(() => errors.length >= 1, 'the error report');
    expect(errors[0]).toMatchObject({ code: 'INVALID_VALUE', key: 'Http:Endpoint' });
    expect(errors[0]!.message).toMatch(/breaks its rules: must match pattern "\^https:\/\/"/);
    expect(config.values.Http.Endpoint).toBe('https://api.example.com');
    expect(logger.messages.warn.some((m) => m.includes('Http:Endpoint'))).toBe(true);
    expect(config.status).toBe('live');
  });
});

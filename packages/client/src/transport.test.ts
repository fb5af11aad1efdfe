import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpsApiClient } from '@realtime-config/test-support/https-api-client';
import {
  createSelfSignedCertificate,
  type SelfSignedCertificate,
} from '@realtime-config/test-support/self-signed-certificate';
import { startTestServer, type TestServer } from '@realtime-config/test-support/test-server';
import { connect } from './index.js';
import {
  databaseKinds,
  recordingLogger,
  setValues,
  startFixture,
  until,
  type Fixture,
} from './test-support/fixtures.js';
import { paymentsSchema } from './test-support/payments-schema.js';

describe.each(databaseKinds)('Grpc:RequireAuthentication=true on %s', (kind) => {
  let fx: Fixture;
  let serviceId: string;
  let apiKey: string;
  const options = () => ({ url: fx.url, serviceId, version: '1.0.0', schema: paymentsSchema, startupTimeout: 5000 });

  beforeAll(async () => {
    fx = await startFixture(kind, ['--Grpc:RequireAuthentication=true']);
    serviceId = await fx.service();
    const created = await fx.admin.post(`/api/services/${serviceId}/apikeys`, { name: 'sdk tests' });
    expect(created.status).toBe(201);
    apiKey = created.body.key as string;
  });
  afterAll(async () => {
    await fx?.close();
  });

  it('refuses a client without credentials or with a wrong key, at once and saying so', async () => {
    await expect(connect(options())).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      message: expect.stringContaining('authorization: Bearer'),
    });
    await expect(connect({ ...options(), apiKey: 'rck_not-a-key' })).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    const otherService = await fx.service();
    await expect(connect({ ...options(), serviceId: otherService, apiKey })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
  });

  it('registers, loads and streams with an API key', async () => {
    const config = await connect({ ...options(), apiKey });
    try {
      await setValues(fx.admin, serviceId, config.versionId, { 'Payments:Provider': 'with a key' });
      await until(() => config.values.Payments.Provider === 'with a key', 'the change over an authenticated stream');
    } finally {
      await config.close();
    }
  });

  it('asks a token function again when the server answers UNAUTHENTICATED', async () => {
    const tokens = ['rck_expired-token', apiKey];
    let asked = 0;
    const config = await connect({ ...options(), token: async () => tokens[Math.min(asked++, 1)]! });
    try {
      expect(asked).toBe(2);
      expect(config.status).toBe('live');
    } finally {
      await config.close();
    }
  });
});

describe('TLS with a private certificate authority', () => {
  let server: TestServer;
  let certificate: SelfSignedCertificate;
  beforeAll(async () => {
    certificate = createSelfSignedCertificate();
    server = await startTestServer({ args: certificate.serverArgs });
  });
  afterAll(async () => {
    await server?.close();
    certificate?.remove();
  });

  it('connects over https with the CA given in options.tls, and refuses without it', async () => {
    expect(server.baseUrl).toMatch(/^https:/);
    const admin = await new HttpsApiClient(server.baseUrl, certificate.cert).login();
    const serviceId = (await admin.post('/api/services', { name: 'tls' })).body.id as string;
    const base = { url: server.baseUrl, serviceId, version: '1.0.0', schema: paymentsSchema };
    const config = await connect({ ...base, tls: { ca: certificate.cert } });
    try {
      await setValues(admin, serviceId, config.versionId, { 'Payments:Mode': 'Live' });
      await until(() => config.values.Payments.Mode === 'Live', 'the change over TLS');
    } finally {
      await config.close();
    }
    await expect(
      connect({ ...base, startupTimeout: 300, pollingInterval: 100, logger: recordingLogger() }),
    ).rejects.toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/self[- ]signed/i) });
  });
});

describe.each(databaseKinds)('a server that answers GetConfig in the Konfigo layout, on %s', (kind) => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture(kind, ['--Grpc:GetConfigLayout=Konfigo']);
  });
  afterAll(async () => {
    await fx?.close();
  });

  it('is read from the snapshot the same way', async () => {
    const serviceId = await fx.service();
    const options = { url: fx.url, serviceId, version: '1.0.0', schema: paymentsSchema };
    const first = await connect(options);
    await setValues(fx.admin, serviceId, first.versionId, { 'Payments:Provider': 'Adyen', 'Payments:Retries': '[7]' });
    await first.close();
    // With PostgreSQL the snapshot hears of the change through LISTEN, a moment after the REST answer.
    await fx.server.flushChanges();

    const config = await connect(options);
    try {
      // Checked before any stream event can arrive: these values come from GetConfig.
      expect(config.values.Payments).toMatchObject({ Provider: 'Adyen', Retries: [7], TimeoutSeconds: 30 });
    } finally {
      await config.close();
    }
  });
});

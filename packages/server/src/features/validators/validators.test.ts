import { once } from 'node:events';
import net from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { ServiceError } from '@grpc/grpc-js';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { registerVersion } from '@realtime-config/test-support/realtime-fixtures';
import { expectRefusedCleanly, type WatchedService } from '@realtime-config/test-support/refusal-checks';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import {
  startValidatorReceiver,
  type ValidationCall,
  type ValidatorReceiver,
} from '@realtime-config/test-support/validator-receiver';
import { startWebhookReceiver, type WebhookReceiver } from '@realtime-config/test-support/webhook-receiver';
import { newMasterKeyFile } from '@realtime-config/test-support/master-key';

interface Entry {
  id: string;
  key: string;
  rawValue: string | null;
  generation: number;
}

/** A port nothing listens on: a connection to it is refused. */
async function closedPort(): Promise<number> {
  const probe = net.createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * Validators (docs/validation.md) with real receivers on loopback: every write of the service's
 * values is shown to them first, signed like a webhook; 2xx lets it through, anything else (another
 * status, no answer in time, a refused connection) refuses it with nothing written; a disabled one
 * is not asked; dry runs report their answers.
 */
describe.each(databaseKinds)('validators on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let receiver: ValidatorReceiver;
  let hooks: WebhookReceiver;
  let watched: WatchedService;
  let serviceId: string;
  let versionId: string;
  let base: string;
  let validatorId: string;
  let secret: string;
  let limit: Entry;

  const verified = (call: ValidationCall) => new Webhook(secret).verify(call.body, call.headers) as any;
  const set = (rawValue: string, entry = limit) =>
    admin.put(`${base}/set`, [{ id: entry.id, rawValue, generation: entry.generation }]);
  const current = async (key = 'Limit') =>
    ((await admin.get(base)).body as Entry[]).find((e) => e.key === key) as Entry;
  const refused = (write: () => ReturnType<ApiClient['put']>) =>
    expectRefusedCleanly(server, admin, watched, [versionId], write);

  beforeAll(async () => {
    const keyFile = newMasterKeyFile();
    server = await startTestServer({
      kind,
      args: [
        '--Webhooks:AllowPrivateNetworks=true',
        '--Validation:TimeoutSeconds=1',
        `--Secrets:MasterKeyFile=${keyFile}`,
      ],
    });
    admin = await server.admin();
    receiver = await startValidatorReceiver();
    hooks = await startWebhookReceiver();
    serviceId = (await admin.post('/api/services', { name: `validated-${kind}` })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '2.0.0' })).body.id;
    base = `/api/configentries/${serviceId}/${versionId}`;
    limit = (await admin.post(base, { key: 'Limit', valueType: 6, rawValue: '10' })).body;
    const webhook = await admin.post(`/api/services/${serviceId}/webhooks`, { url: hooks.url });
    watched = { serviceId, webhookId: webhook.body.id };
    const created = await admin.post(`/api/services/${serviceId}/validators`, {
      url: receiver.url,
      description: 'CI gate',
    });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(
      ['createdAt', 'description', 'enabled', 'id', 'secret', 'url'].sort(),
    );
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    validatorId = created.body.id;
    secret = created.body.secret;
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
    await hooks.close();
  });
  beforeEach(async () => {
    receiver.decide(() => ({ status: 204 }));
    receiver.calls.length = 0;
    limit = await current();
  });

  it('shows each write to the validator, signed; a 2xx lets it through', async () => {
    const res = await set('20');
    expect(res.status, res.text).toBe(200);
    expect(receiver.calls).toHaveLength(1);
    const call = receiver.calls[0] as ValidationCall;
    expect(call.headers['webhook-id']).toMatch(/^msg_/);
    const body = verified(call);
    expect(body).toMatchObject({
      type: 'validation.requested',
      serviceId,
      versionId,
      versionLabel: '2.0.0',
      userId: 'admin',
      changes: [
        {
          key: 'Limit',
          entryId: limit.id,
          before: { rawValue: '10', generation: limit.generation },
          after: { rawValue: '20', generation: limit.generation + 1 },
        },
      ],
    });
    expect((await current()).rawValue).toBe('20');
    // What the validator saw is what was committed: the same entry, generation and value.
    expect(body.changes[0].after.id).toBe((await current()).id);
  });

  it('refuses the write when the validator answers another status, with the start of its answer', async () => {
    receiver.decide(() => ({ status: 422, body: `Limit above the policy ${'x'.repeat(600)}` }));
    const res = await refused(() => set('99'));
    expect(res.body.violations).toHaveLength(1);
    const violation = res.body.violations[0]!;
    expect(violation).toMatchObject({ key: null, entryId: null, instancePath: '', keyword: 'validator' });
    expect(violation.message).toMatch(/^Limit above the policy x+$/);
    expect(violation.message).toHaveLength(500);
  });

  it('refuses the write when the validator does not answer in time', async () => {
    receiver.decide(() => 'hang');
    const res = await refused(() => set('98'));
    expect(res.body.violations[0]?.message).toMatch(/no answer within 1 s/);
  });

  it('refuses the write when the validator cannot be reached, until it is disabled', async () => {
    const port = await closedPort();
    const down = await admin.post(`/api/services/${serviceId}/validators`, { url: `http://127.0.0.1:${port}/v` });
    expect(down.status, down.text).toBe(201);
    const res = await refused(() => set('97'));
    expect(res.body.violations).toHaveLength(1);
    expect(res.body.violations[0]?.message).toMatch(/ECONNREFUSED|connect/i);

    const disabled = await admin.put(`/api/services/${serviceId}/validators/${down.body.id}`, { enabled: false });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body.enabled).toBe(false);
    expect((await set('97')).status).toBe(200);
    expect((await admin.delete(`/api/services/${serviceId}/validators/${down.body.id}`)).status).toBe(204);
  });

  it('does not ask a disabled validator', async () => {
    await admin.put(`/api/services/${serviceId}/validators/${validatorId}`, { enabled: false });
    receiver.decide(() => ({ status: 500 }));
    try {
      expect((await set('55')).status).toBe(200);
      expect(receiver.calls).toHaveLength(0);
    } finally {
      await admin.put(`/api/services/${serviceId}/validators/${validatorId}`, { enabled: true });
    }
  });

  it('asks on every way of writing values: create, metadata, import; a refusal there changes nothing', async () => {
    receiver.decide(() => ({ status: 409, body: 'frozen' }));
    await refused(() => admin.post(base, { key: 'New', valueType: 1, rawValue: 'x' }));
    await refused(() => admin.put(`${base}/${limit.id}`, { rawValue: '11', generation: limit.generation }));
    await refused(() =>
      admin.post(`/api/configversions/${serviceId}/${versionId}/import?format=env&dryRun=false`, 'Limit=12\n', {
        contentType: 'text/plain',
      }),
    );
    expect(receiver.calls).toHaveLength(3);
  });

  it('asks about the keys an application registers: a refusal is INVALID_ARGUMENT and registers nothing', async () => {
    const grpc = new GrpcTestClient(`127.0.0.1:${server.port}`);
    try {
      receiver.decide(() => ({ status: 403, body: 'no new versions today' }));
      const refused = await registerVersion(grpc, serviceId, '9.9.9', [{ key: 'Fresh', value: 'x' }]).then(
        () => null,
        (error: ServiceError) => error,
      );
      expect(refused?.code).toBe(3);
      expect(refused?.details).toContain('no new versions today');
      expect((await grpc.isVersionExists({ serviceId, version: '9.9.9' })).versionId).toBeUndefined();
      receiver.decide(() => ({ status: 204 }));
      const versionId = await registerVersion(grpc, serviceId, '9.9.9', [{ key: 'Fresh', value: 'x' }]);
      const asked = verified(receiver.calls.at(-1) as ValidationCall);
      expect(asked).toMatchObject({ versionId, versionLabel: '9.9.9', changes: [{ key: 'Fresh', before: null }] });
      expect(asked.changes[0].entryId).toBe(
        ((await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as Entry[])[0]?.id,
      );
    } finally {
      grpc.close();
    }
  });

  it('reports the answers in a dry run, writing nothing', async () => {
    receiver.decide(() => ({ status: 400, body: 'not on Fridays' }));
    const url = `/api/configversions/${serviceId}/${versionId}/import?format=env`;
    const dry = await admin.post(url, 'Limit=13\n', { contentType: 'text/plain' });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.validators).toEqual([
      { id: validatorId, url: receiver.url, passed: false, statusCode: 400, message: 'not on Fridays' },
    ]);
    expect(verified(receiver.calls[0] as ValidationCall).changes[0]).toMatchObject({
      key: 'Limit',
      after: { rawValue: '13' },
    });
    expect((await current()).rawValue).toBe(limit.rawValue);
    receiver.decide(() => ({ status: 200, body: 'fine' }));
    const passing = await admin.post(url, 'Limit=13\n', { contentType: 'text/plain' });
    expect(passing.body.validators[0]).toMatchObject({ passed: true, statusCode: 200, message: 'fine' });
  });

  it("never shows a secret's value to a validator", async () => {
    const token = (await admin.post(base, { key: 'Token', valueType: 1, rawValue: null, isSecret: true }))
      .body as Entry;
    receiver.calls.length = 0;
    const res = await set('tok-hunter2', token);
    expect(res.status, res.text).toBe(200);
    const call = receiver.calls[0] as ValidationCall;
    expect(call.body).not.toContain('hunter2');
    expect(verified(call).changes[0].after).toMatchObject({ rawValue: null, redacted: true, isSecret: true });
  });

  it('holds no lock while a validator thinks: other services write meanwhile', async () => {
    const other = (await admin.post('/api/services', { name: `unvalidated-${kind}` })).body.id as string;
    const otherVersion = (await admin.post(`/api/configversions/${other}`, { versionLabel: '1' })).body.id as string;
    receiver.decide(() => 'hang');
    const pending = set('77');
    while (receiver.hanging === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const elsewhere = await admin.post(`/api/configentries/${other}/${otherVersion}`, { key: 'K', valueType: 1 });
    expect(elsewhere.status, elsewhere.text).toBe(201);
    expect(receiver.hanging).toBe(1);
    expect((await pending).status).toBe(400);
  });

  it('commits only what the validator saw: a write in between makes the first one a 409', async () => {
    let first = true;
    receiver.decide(async () => {
      if (!first) return { status: 204 };
      first = false;
      // While the first write waits for this answer, another one passes and commits.
      const between = await set('66');
      expect(between.status, between.text).toBe(200);
      return { status: 204 };
    });
    const res = await set('65');
    expect(res.status, res.text).toBe(409);
    expect((await current()).rawValue).toBe('66');
  });

  it('asks again when the change moved while the validator was asked (a write without generations)', async () => {
    const other = (await admin.post(base, { key: 'Other', valueType: 6, rawValue: '0' })).body as Entry;
    receiver.calls.length = 0;
    let first = true;
    receiver.decide(async () => {
      if (!first) return { status: 204 };
      first = false;
      expect((await set('5', other)).status).toBe(200);
      return { status: 204 };
    });
    // An import names no generations: run again after the answer, it plans from the value set meanwhile.
    const url = `/api/configversions/${serviceId}/${versionId}/import?format=env&dryRun=false`;
    const res = await admin.post(url, 'Other=1\n', { contentType: 'text/plain' });
    expect(res.status, res.text).toBe(200);
    const asked = receiver.calls.map((c) => verified(c).changes[0]);
    expect(asked.map((c: any) => [c.before.rawValue, c.after.rawValue])).toEqual([
      ['0', '1'],
      ['0', '5'],
      ['5', '1'],
    ]);
    expect((await current('Other')).rawValue).toBe('1');
  });

  it('audits each validator change; never its secret', async () => {
    const audit = await admin.post('/api/auditlogs/search', { serviceId, entityType: 'Validator', pageSize: 100 });
    expect(audit.status, audit.text).toBe(200);
    const actions = audit.body.entities.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['Created', 'Updated', 'Deleted']));
    expect(audit.text).not.toContain('whsec_');
    // Kept sealed by the master key, like webhooks' secrets.
    const stored = await sql<{ secret: string }>`select secret from validators`.execute(server.internals.database.db);
    expect(stored.rows.length).toBeGreaterThan(0);
    for (const row of stored.rows) expect(row.secret).toMatch(/^rcsec1\./);
    const listed = await admin.get(`/api/services/${serviceId}/validators`);
    expect(listed.body.map((v: { id: string }) => v.id)).toEqual([validatorId]);
    expect(listed.text).not.toContain('whsec_');
  });
});

describe('validator targets', () => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: 'validator-targets' })).body.id;
  });
  afterAll(() => server.close());

  it('refuses what webhooks refuse: other schemes, private networks (without Webhooks:AllowPrivateNetworks)', async () => {
    for (const url of ['ftp://example.com/v', 'http://127.0.0.1:9/v', 'http://[::ffff:10.0.0.1]/v', 'not a url']) {
      const res = await admin.post(`/api/services/${serviceId}/validators`, { url });
      expect(res.status, res.text).toBe(400);
      expect(res.body.errors.url, res.text).toBeDefined();
      expect(res.body.detail).toMatch(/^The validator URL/);
    }
    expect((await admin.get(`/api/services/${serviceId}/validators`)).body).toEqual([]);
  });

  it('lets only owners manage validators, and only a signed-in session create one', async () => {
    const dev = await server.userWithRole('validator-dev', 'developer');
    await admin.post(`/api/services/${serviceId}/members`, { userId: 'validator-dev', role: 'editor' });
    expect((await dev.get(`/api/services/${serviceId}/validators`)).status).toBe(403);
    const key = await admin.post(`/api/services/${serviceId}/apikeys`, { name: 'ci', scopes: ['read', 'write'] });
    expect(key.status, key.text).toBe(201);
    const byKey = await server
      .client()
      .post(
        `/api/services/${serviceId}/validators`,
        { url: 'https://example.com/v' },
        { headers: { authorization: `Bearer ${key.body.key}` } },
      );
    expect(byKey.status, byKey.text).toBe(403);
  });
});

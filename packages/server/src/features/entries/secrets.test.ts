import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, scannableDatabase, type TestDatabase } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { newMasterKeyFile } from '@realtime-config/test-support/master-key';

const STRING = 1;

describe.each(databaseKinds)('secret entries over REST on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let developer: ApiClient;
  let bytes: () => Buffer;
  let database: TestDatabase;
  const logLines: string[] = [];
  const FIRST = `first-plaintext-${randomUUID()}`;
  const SECOND = `second-plaintext-${randomUUID()}`;
  const THIRD = `third-plaintext-${randomUUID()}`;
  let serviceId: string;
  let v1: string;
  let v2: string;
  let secretId: string;
  /** Every answer body seen, to check none shows a value. */
  const answers: string[] = [];

  beforeAll(async () => {
    const scannable = await scannableDatabase(kind);
    database = scannable.db;
    bytes = scannable.bytes;
    const keyFile = newMasterKeyFile();
    const logger = pino({ level: 'trace' }, { write: (line: string) => void logLines.push(line) });
    server = await startTestServer({
      database,
      args: kind === 'postgres' ? [`--Secrets:MasterKeyFile=${keyFile}`] : [],
      deps: { logger },
    });
    admin = await server.admin();
    developer = await server.userWithRole('secret-dev', 'developer');
    serviceId = (await admin.post('/api/services', { name: 'secrets-suite' })).body.id;
    const member = await admin.post(`/api/services/${serviceId}/members`, { userId: 'secret-dev', role: 'editor' });
    expect(member.status, member.text).toBeLessThan(300);
    v1 = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0' })).body.id;
    v2 = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '2.0' })).body.id;
  });
  afterAll(async () => {
    await server.close();
    await database.drop();
  });

  const entries = (v: string) => `/api/configentries/${serviceId}/${v}`;
  const versions = (v: string) => `/api/configversions/${serviceId}/${v}`;
  const seen = <T extends { text: string }>(res: T): T => {
    answers.push(res.text);
    return res;
  };

  it('creates a secret: the answer says isSecret, hasValue, redacted and a fingerprint, never the value', async () => {
    const created = seen(
      await admin.post(entries(v1), { key: 'Payments:ApiKey', valueType: STRING, rawValue: FIRST, isSecret: true }),
    );
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ rawValue: null, isSecret: true, hasValue: true, redacted: true });
    expect(created.body.fingerprint).toMatch(/^[0-9a-f]{16,}$/);
    secretId = created.body.id;

    const same = seen(
      await admin.post(entries(v2), { key: 'Payments:ApiKey', valueType: STRING, rawValue: FIRST, isSecret: true }),
    );
    expect(same.body.fingerprint).toBe(created.body.fingerprint);
    const plain = seen(await admin.post(entries(v1), { key: 'Payments:Url', valueType: STRING, rawValue: 'x' }));
    expect(plain.body).toMatchObject({ rawValue: 'x', isSecret: false, hasValue: true });
    expect(plain.body).not.toHaveProperty('redacted');

    const list = seen(await admin.get(entries(v1)));
    expect(list.body.find((e: { id: string }) => e.id === secretId)).toMatchObject({
      rawValue: null,
      redacted: true,
      fingerprint: created.body.fingerprint,
    });
  });

  it('sets a secret without revealing it; a metadata update without rawValue keeps the value', async () => {
    const before = (await admin.get(entries(v1))).body.find((e: { id: string }) => e.id === secretId);
    const set = seen(
      await developer.put(`${entries(v1)}/set`, [{ id: secretId, rawValue: SECOND, generation: before.generation }]),
    );
    expect(set.status, set.text).toBe(200);
    expect(set.body[0]).toMatchObject({ rawValue: null, redacted: true, isSecret: true });
    expect(set.body[0].fingerprint).not.toBe(before.fingerprint);
    const updated = seen(
      await admin.put(`${entries(v1)}/${secretId}`, { description: 'the key', generation: set.body[0].generation }),
    );
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.fingerprint).toBe(set.body[0].fingerprint);
    const revealed = await admin.post(`${entries(v1)}/${secretId}/reveal`);
    expect(revealed.status, revealed.text).toBe(200);
    expect(revealed.body).toEqual({ rawValue: SECOND, generation: updated.body.generation });
  });

  it('reveals only to canReveal users, and audits every reveal without the value', async () => {
    const refused = seen(await developer.post(`${entries(v1)}/${secretId}/reveal`));
    expect(refused.status).toBe(403);
    const audit = seen(await admin.post('/api/auditlogs/search', { serviceId, action: 'Revealed', pageSize: 100 }));
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body.entities.length).toBe(1);
    expect(audit.body.entities[0]).toMatchObject({ action: 'Revealed', entityId: secretId, userId: 'admin' });
  });

  it('redacts history, audit changes, compare, exports and plans, with equal fingerprints for equal values', async () => {
    const history = seen(await admin.get(`${entries(v1)}/${secretId}/history`));
    expect(history.status, history.text).toBe(200);
    for (const item of history.body.entities) expect(item).toMatchObject({ value: null, redacted: true });
    const audit = seen(await admin.post('/api/auditlogs/search', { serviceId, pageSize: 100 }));
    const valueSet = audit.body.entities.find((r: { action: string }) => r.action === 'ValueSet');
    expect(valueSet.changes.after).toMatchObject({ rawValue: null, redacted: true });
    expect(valueSet.changes.before.fingerprint).toBe(
      (await admin.get(entries(v2))).body.find((e: { key: string }) => e.key === 'Payments:ApiKey').fingerprint,
    );

    const compare = seen(await admin.get(`/api/configversions/${serviceId}/compare?base=${v1}&target=${v2}`));
    expect(compare.status, compare.text).toBe(200);
    const diff = compare.body.differences.find((d: { key: string }) => d.key === 'Payments:ApiKey');
    expect(diff.change).toBe('valueChanged');
    expect(diff.base).toMatchObject({ value: null, redacted: true, isSecret: true });
    expect(diff.base.fingerprint).not.toBe(diff.target.fingerprint);

    const json = seen(await admin.get(`${versions(v1)}/export?format=json`));
    expect(json.status, json.text).toBe(200);
    expect(JSON.parse(json.text).entries['Payments:ApiKey']).toMatchObject({ isSecret: true, redacted: true });
    const env = seen(await admin.get(`${versions(v1)}/export?format=env`));
    expect(env.text).toContain('# Payments:ApiKey: secret, not exported');
    expect(seen(await admin.get(`${versions(v1)}/export?format=yaml`)).status).toBe(200);

    // The export imports back without touching the secret.
    const dry = seen(await admin.post(`${versions(v1)}/import?format=json`, json.text));
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.changes).toEqual([]);
    const envDry = seen(await admin.post(`${versions(v1)}/import?format=env`, env.text, { contentType: 'text/plain' }));
    expect(envDry.body.changes).toEqual([]);

    const restore = seen(
      await admin.post(`${entries(v1)}/restore`, { at: new Date(Date.now() - 60_000).toISOString() }),
    );
    expect(restore.status, restore.text).toBe(200);
    for (const change of restore.body.changes) {
      if (change.key === 'Payments:ApiKey') expect(change.current).toMatchObject({ value: null, redacted: true });
    }
  });

  it('restores a secret to an earlier value, still sealed and redacted', async () => {
    const history = (await admin.get(`${entries(v1)}/${secretId}/history`)).body.entities;
    const created = history.find((h: { action: string }) => h.action === 'Created');
    const at = created.timestamp as string;
    const dry = seen(await admin.post(`${entries(v1)}/restore`, { at, keys: ['Payments:ApiKey'] }));
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.changes).toHaveLength(1);
    expect(dry.body.changes[0].next).toMatchObject({ value: null, redacted: true });
    const applied = seen(
      await admin.post(`${entries(v1)}/restore`, {
        at,
        keys: ['Payments:ApiKey'],
        dryRun: false,
        basedOn: dry.body.basedOn,
      }),
    );
    expect(applied.status, applied.text).toBe(200);
    expect((await admin.post(`${entries(v1)}/${secretId}/reveal`)).body.rawValue).toBe(FIRST);
  });

  it('exports secrets only for canReveal with includeSecrets, audited once per secret', async () => {
    expect(seen(await developer.get(`${versions(v1)}/export?format=json&includeSecrets=true`)).status).toBe(403);
    const before = (await admin.post('/api/auditlogs/search', { serviceId, action: 'Revealed', pageSize: 100 })).body
      .entities.length;
    const full = await admin.get(`${versions(v1)}/export?format=json&includeSecrets=true`);
    expect(full.status, full.text).toBe(200);
    expect(full.text).toContain(FIRST);
    const after = (await admin.post('/api/auditlogs/search', { serviceId, action: 'Revealed', pageSize: 100 })).body
      .entities.length;
    expect(after).toBe(before + 1);
  });

  it('turns an ordinary entry secret (sealing its history); only canAll turns it back', async () => {
    const marker = `was-plain-${randomUUID()}`;
    const plain = await admin.post(entries(v2), { key: 'Db:Password', valueType: STRING, rawValue: marker });
    const turned = seen(await admin.put(`${entries(v2)}/${plain.body.id}`, { isSecret: true, generation: 1 }));
    expect(turned.status, turned.text).toBe(200);
    expect(turned.body).toMatchObject({ isSecret: true, redacted: true, rawValue: null });
    const audit = seen(await admin.post('/api/auditlogs/search', { serviceId, versionId: v2, pageSize: 100 }));
    expect(audit.text).not.toContain(marker);
    const stored = await server.internals.database.db
      .selectFrom('audit_logs')
      .select('changes')
      .where('entity_id', '=', plain.body.id)
      .execute();
    for (const row of stored) expect(row.changes).not.toContain(marker);
    await admin.put(`/api/services/${serviceId}/members/secret-dev`, { role: 'owner' });
    const refused = await developer.put(`${entries(v2)}/${plain.body.id}`, { isSecret: false, generation: 2 });
    expect(refused.status, refused.text).toBe(403);
    await admin.delete(`${entries(v2)}/${plain.body.id}`);
  });

  it('keeps a change request of a secret sealed and redacted, and applies the value', async () => {
    const v3 = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '3.0' })).body.id as string;
    const entry = seen(
      await admin.post(entries(v3), { key: 'Db:Password', valueType: STRING, rawValue: FIRST, isSecret: true }),
    ).body;
    expect(
      (await admin.put(`/api/configversions/${serviceId}/${v3}`, { versionLabel: '3.0', protected: true })).status,
    ).toBe(200);
    const base = `/api/configversions/${serviceId}/${v3}/changerequests`;
    const opened = seen(
      await admin.post(base, {
        title: 'rotate the password',
        changes: [{ id: entry.id, rawValue: THIRD, generation: entry.generation }],
      }),
    );
    expect(opened.status, opened.text).toBe(201);
    expect(opened.body.changes[0]).toMatchObject({ rawValue: null, redacted: true, currentValue: null });
    expect(opened.body.changes[0].fingerprint).toMatch(/^[0-9a-f]{16,}$/);
    seen(await admin.get(base));
    expect(seen(await developer.post(`${base}/${opened.body.id}/approve`)).status).toBe(200);
    const applied = seen(await admin.post(`${base}/${opened.body.id}/apply`));
    expect(applied.status, applied.text).toBe(200);
    expect((await admin.post(`${entries(v3)}/${entry.id}/reveal`)).body.rawValue).toBe(THIRD);
    seen(await admin.post('/api/auditlogs/search', { serviceId, pageSize: 100 }));
  });

  it('leaves no plaintext in any answer, the database files or the log', async () => {
    expect((await admin.delete(`${entries(v1)}/${secretId}`)).status).toBe(204);
    await server.flushChanges();
    for (const text of answers) {
      for (const marker of [FIRST, SECOND, THIRD]) expect(text).not.toContain(marker);
    }
    await server.close();
    const stored = bytes();
    expect(stored.length).toBeGreaterThan(0);
    // The scan reads what is there: key names are stored as they are.
    expect(stored.includes(Buffer.from('Payments:ApiKey'))).toBe(true);
    for (const marker of [FIRST, SECOND, THIRD]) {
      expect(stored.includes(Buffer.from(marker))).toBe(false);
    }
    const log = logLines.join('\n');
    expect(log).toContain('"msg":"request"');
    for (const marker of [FIRST, SECOND, THIRD]) expect(log).not.toContain(marker);
  });
});

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { newMasterKeyFile } from '@realtime-config/test-support/master-key';

const STRING = 1;
const MAX_BYTES = 4096;

/**
 * A caller without canReveal learns nothing of a secret's value from what writes nothing and leaves
 * no audit record: dry runs of imports, promotions and restores, history, size-cap refusals.
 */
describe.each(databaseKinds)('no secret oracle on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let viewer: ApiClient;
  let editor: ApiClient;

  beforeAll(async () => {
    const keyFile = newMasterKeyFile();
    server = await startTestServer({
      kind,
      args: [`--Secrets:MasterKeyFile=${keyFile}`, `--Versions:MaxBytes=${MAX_BYTES}`],
    });
    admin = await server.admin();
    viewer = await server.userWithRole('oracle-viewer', 'developer');
    editor = await server.userWithRole('oracle-editor', 'developer');
  });
  afterAll(() => server.close());

  /** A service where the viewer and the editor are members (neither may reveal). */
  const newService = async () => {
    const serviceId = (await admin.post('/api/services', { name: `oracle-${randomUUID()}` })).body.id as string;
    for (const [userId, role] of [
      ['oracle-viewer', 'viewer'],
      ['oracle-editor', 'editor'],
    ]) {
      const member = await admin.post(`/api/services/${serviceId}/members`, { userId, role });
      expect(member.status, member.text).toBeLessThan(300);
    }
    return serviceId;
  };
  const newVersion = async (serviceId: string, label: string, entries: Array<[string, string, boolean]>) => {
    const versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: label })).body.id as string;
    for (const [key, rawValue, isSecret] of entries) {
      const created = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
        key,
        valueType: STRING,
        rawValue,
        isSecret,
      });
      expect(created.status, created.text).toBe(201);
    }
    return versionId;
  };
  const importInto = (client: ApiClient, serviceId: string, versionId: string, body: unknown, query = '') =>
    client.post(`/api/configversions/${serviceId}/${versionId}/import?format=json${query}`, body);

  it('answers an import dry run the same for a right and a wrong guess of a secret', async () => {
    const serviceId = await newService();
    const versionId = await newVersion(serviceId, '1.0', [
      ['Vault:Pin', '4821', true],
      ['Vault:Url', 'https://vault.example', false],
    ]);
    for (const client of [viewer, editor]) {
      const right = await importInto(client, serviceId, versionId, { 'Vault:Pin': '4821', 'Vault:Url': 'x' });
      const wrong = await importInto(client, serviceId, versionId, { 'Vault:Pin': '1234', 'Vault:Url': 'x' });
      expect(right.status, right.text).toBe(200);
      expect(wrong.status, wrong.text).toBe(200);
      expect(right.body).toEqual(wrong.body);
      const pin = right.body.changes.find((c: { key: string }) => c.key === 'Vault:Pin');
      expect(pin).toMatchObject({ action: 'set', next: { value: null, isSecret: true, redacted: true } });
      // The fingerprint of a value the caller sent would be compared with the stored one's.
      expect(pin.next).not.toHaveProperty('fingerprint');
    }

    // A new secret key: no fingerprint of the guess either (equal values have equal fingerprints
    // everywhere, so it would be compared with this version's).
    const empty = await newVersion(serviceId, '2.0', []);
    const document = (value: string) => ({
      values: { 'Vault:Pin': value },
      entries: { 'Vault:Pin': { type: 'String', isSecret: true } },
    });
    const created = await Promise.all(
      ['4821', '1234'].map((value) => importInto(viewer, serviceId, empty, document(value), '&createMissing=true')),
    );
    expect(created[0]!.status, created[0]!.text).toBe(200);
    expect(created[0]!.body).toEqual(created[1]!.body);
    expect(created[0]!.body.changes[0]).toMatchObject({ action: 'create', next: { value: null, redacted: true } });
  });

  it('lists a promoted secret as a change whatever its value, unless the caller may reveal', async () => {
    const serviceId = await newService();
    const target = await newVersion(serviceId, 'target', [['Db:Password', 'hunter2', true]]);
    const same = await newVersion(serviceId, 'same', [['Db:Password', 'hunter2', true]]);
    const other = await newVersion(serviceId, 'other', [['Db:Password', 'swordfish', true]]);
    const promote = (client: ApiClient, from: string) => importInto(client, serviceId, target, { fromVersionId: from });
    for (const from of [same, other]) {
      const dry = await promote(editor, from);
      expect(dry.status, dry.text).toBe(200);
      expect(dry.body.changes).toHaveLength(1);
      expect(dry.body.changes[0]).toMatchObject({ key: 'Db:Password', action: 'set', next: { value: null } });
    }
    // A canReveal user may compare: the equal value is no change.
    expect((await promote(admin, same)).body.changes).toEqual([]);
    expect((await promote(admin, other)).body.changes).toHaveLength(1);
  });

  it('keeps the values an entry had while secret redacted in its history and restores once it is no longer secret', async () => {
    const serviceId = await newService();
    const FIRST = `first-${randomUUID()}`;
    const SECOND = `second-${randomUUID()}`;
    const versionId = await newVersion(serviceId, '1.0', [['Db:Password', FIRST, true]]);
    const base = `/api/configentries/${serviceId}/${versionId}`;
    const entry = () => admin.get(base).then((res) => res.body[0] as { id: string; generation: number });
    const history = (client: ApiClient) => client.get(`${base}/${entryIdOf}/history`);
    const entryIdOf = (await entry()).id;
    const firstAt = (await history(admin)).body.entities[0].timestamp as string;
    const set = await admin.put(`${base}/set`, [
      { id: entryIdOf, rawValue: SECOND, generation: (await entry()).generation },
    ]);
    expect(set.status, set.text).toBe(200);
    const secondAt = (await history(admin)).body.entities[0].timestamp as string;
    // Only canAll turns a secret into an ordinary entry; its value from then on is shown to all.
    const opened = await admin.put(`${base}/${entryIdOf}`, {
      isSecret: false,
      rawValue: 'now-public',
      generation: (await entry()).generation,
    });
    expect(opened.status, opened.text).toBe(200);
    expect(opened.body).toMatchObject({ isSecret: false, rawValue: 'now-public' });

    for (const client of [viewer, editor, admin]) {
      // A restore would put a value that was secret into an entry that is not: refused, naming the
      // key, for everyone (make it secret again first), and without the value.
      for (const at of [firstAt, secondAt]) {
        const dry = await client.post(`${base}/restore`, { at });
        expect(dry.text).not.toContain(FIRST);
        expect(dry.text).not.toContain(SECOND);
        expect(dry.status, dry.text).toBe(400);
        expect(dry.body.detail).toContain('Db:Password');
      }

      const items = await history(client);
      expect(items.status, items.text).toBe(200);
      expect(items.text).not.toContain(FIRST);
      expect(items.text).not.toContain(SECOND);
      const [updated, ...whileSecret] = items.body.entities;
      expect(whileSecret.map((i: { action: string }) => i.action)).toEqual(['ValueSet', 'Created']);
      for (const item of whileSecret) expect(item).toMatchObject({ value: null, isSecret: true, redacted: true });
      // The value it has from the change that ended its secrecy on is an ordinary entry's.
      expect(updated).toMatchObject({ action: 'Updated', value: 'now-public', isSecret: false });
    }

    // Made secret again, the entry may get its old value back: redacted in the plan.
    const closed = await admin.put(`${base}/${entryIdOf}`, { isSecret: true, generation: (await entry()).generation });
    expect(closed.status, closed.text).toBe(200);
    const dry = await editor.post(`${base}/restore`, { at: firstAt });
    expect(dry.status, dry.text).toBe(200);
    expect(dry.body.changes[0]).toMatchObject({ action: 'set', next: { value: null, isSecret: true, redacted: true } });
    expect(dry.text).not.toContain(FIRST);
    const applied = await editor.post(`${base}/restore`, { at: firstAt, dryRun: false, basedOn: dry.body.basedOn });
    expect(applied.status, applied.text).toBe(200);
    expect((await admin.post(`${base}/${entryIdOf}/reveal`)).body.rawValue).toBe(FIRST);
  });

  it('refuses growth past the byte cap naming the limit, never the size, so secret lengths stay untold', async () => {
    const details: string[] = [];
    for (const length of [10, 900]) {
      const serviceId = await newService();
      const versionId = await newVersion(serviceId, '1.0', [['Api:Key', 'k'.repeat(length), true]]);
      const big = { values: { 'Api:Filler': 'f'.repeat(MAX_BYTES - 20) } };
      const dry = await importInto(viewer, serviceId, versionId, big, '&createMissing=true');
      expect(dry.status, dry.text).toBe(400);
      const created = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
        key: 'Api:Filler',
        valueType: STRING,
        rawValue: 'f'.repeat(MAX_BYTES - 20),
      });
      expect(created.status, created.text).toBe(400);
      expect(created.body.detail).toBe(dry.body.detail);
      details.push(dry.body.detail as string);
    }
    expect(details[1]).toBe(details[0]);
    expect(details[0]).toBe('Version 1.0 would grow past its limit of 4,096 bytes (Versions:MaxBytes).');
  });
});

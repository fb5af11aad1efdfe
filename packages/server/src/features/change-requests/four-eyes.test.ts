import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTestClient } from '@realtime-config/test-support/grpc-client';
import { registerVersion } from '@realtime-config/test-support/realtime-fixtures';
import { databaseKinds } from '@realtime-config/test-support/test-databases';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';

interface Entry {
  id: string;
  key: string;
  rawValue: string | null;
  generation: number;
}

/**
 * Nobody approves content they wrote, and an approval counts only while its approver may still
 * change the service's values: the ways around review that an outside look found stay closed.
 */
describe.each(databaseKinds)('four eyes on change requests on %s', (kind) => {
  let server: TestServer;
  let admin: ApiClient;
  let owner: ApiClient;
  let author: ApiClient;
  let reviewer: ApiClient;
  let localAdmin: ApiClient;
  let serviceId: string;
  let versionId: string;
  let base: string;
  const name = (who: string) => `${who}-${kind}`;

  const entries = async () => (await admin.get(`/api/configentries/${serviceId}/${versionId}`)).body as Entry[];
  const entry = async (key: string) => (await entries()).find((e) => e.key === key)!;
  const changeOf = async (key: string, rawValue: string) => {
    const e = await entry(key);
    return { id: e.id, rawValue, generation: e.generation };
  };
  const open = async (client: ApiClient, key: string, rawValue: string) => {
    const res = await client.post(base, { title: `set ${key}`, changes: [await changeOf(key, rawValue)] });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; author: string; status: string };
  };
  const setRole = async (who: string, role: string) =>
    expect((await admin.put(`/api/services/${serviceId}/members/${name(who)}`, { role })).status).toBe(200);

  beforeAll(async () => {
    server = await startTestServer({ kind });
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: `four-eyes-${kind}` })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1.0.0' })).body.id;
    for (const key of ['A', 'B', 'C', 'D', 'E', 'Gone']) {
      await admin.post(`/api/configentries/${serviceId}/${versionId}`, { key, valueType: 1, rawValue: `${key}-0` });
    }
    const members: Array<[string, string]> = [
      ['owner', 'owner'],
      ['author', 'editor'],
      ['reviewer', 'editor'],
    ];
    for (const [who, role] of members) {
      await server.userWithRole(name(who), 'developer');
      await admin.post(`/api/services/${serviceId}/members`, { userId: name(who), role });
    }
    owner = await server.client().login(name('owner'), `${name('owner')}-password-for-tests`);
    author = await server.client().login(name('author'), `${name('author')}-password-for-tests`);
    reviewer = await server.client().login(name('reviewer'), `${name('reviewer')}-password-for-tests`);
    // An admin of the whole server, not a member: an owner of every service while the role lasts.
    localAdmin = await server.userWithRole(name('second-admin'), 'admin');
    base = `/api/configversions/${serviceId}/${versionId}/changerequests`;
    const gone = await entry('Gone');
    expect((await admin.delete(`/api/configentries/${serviceId}/${versionId}/${gone.id}`)).status).toBe(204);
    expect(
      (await admin.put(`/api/configversions/${serviceId}/${versionId}`, { versionLabel: '1.0.0', protected: true }))
        .status,
    ).toBe(200);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('does not let an owner who edited the request approve it; it names her among its editors', async () => {
    const request = await open(author, 'A', 'by-author');
    const edited = await owner.put(`${base}/${request.id}`, {
      title: 'set A',
      changes: [await changeOf('A', 'by-owner')],
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({ author: name('author'), editors: [name('owner')] });
    const self = await owner.post(`${base}/${request.id}/approve`);
    expect(self.status).toBe(403);
    expect(self.body.detail).toMatch(/edited/);
    expect((await owner.post(`${base}/${request.id}/apply`)).status).toBe(409);
    expect((await entry('A')).rawValue).toBe('A-0');
    // The author may not approve either; someone who wrote none of it may.
    expect((await author.post(`${base}/${request.id}/approve`)).status).toBe(403);
    expect((await reviewer.post(`${base}/${request.id}/approve`)).body.status).toBe('approved');
    expect((await owner.post(`${base}/${request.id}/apply`)).status).toBe(200);
    expect((await entry('A')).rawValue).toBe('by-owner');
  });

  it('drops an approval given before its approver edited the request, even a title-only edit', async () => {
    const request = await open(author, 'B', 'one');
    expect((await owner.post(`${base}/${request.id}/approve`)).body.status).toBe('approved');
    const retitled = await owner.put(`${base}/${request.id}`, {
      title: 'renamed',
      changes: [await changeOf('B', 'one')],
    });
    expect(retitled.status).toBe(200);
    expect(retitled.body.status).toBe('open');
    expect((await author.post(`${base}/${request.id}/apply`)).status).toBe(409);
    expect((await entry('B')).rawValue).toBe('B-0');
  });

  it('makes the creator of an API key the author of a request opened with it', async () => {
    const key = await owner.post(`/api/services/${serviceId}/apikeys`, { name: 'ci', scopes: ['read', 'write'] });
    expect(key.status, key.text).toBe(201);
    const ci = server.client();
    const headers = { authorization: `Bearer ${key.body.key as string}` };
    const opened = await ci.post(base, { title: 'from CI', changes: [await changeOf('C', 'from-ci')] }, { headers });
    expect(opened.status, opened.text).toBe(201);
    expect(opened.body.author).toBe(name('owner'));
    expect((await owner.post(`${base}/${opened.body.id as string}/approve`)).status).toBe(403);
    expect((await reviewer.post(`${base}/${opened.body.id as string}/approve`)).body.status).toBe('approved');
    expect((await ci.post(`${base}/${opened.body.id as string}/apply`, undefined, { headers })).status).toBe(200);
    expect((await entry('C')).rawValue).toBe('from-ci');
  });

  it('stops counting an approval once its approver is demoted, and counts it again once promoted', async () => {
    const request = await open(author, 'D', 'reviewed');
    expect((await reviewer.post(`${base}/${request.id}/approve`)).body.status).toBe('approved');
    await setRole('reviewer', 'viewer');
    const refused = await author.post(`${base}/${request.id}/apply`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/0 of the 1 approval/);
    expect((await admin.get(`${base}/${request.id}`)).body.status).toBe('open');
    expect((await entry('D')).rawValue).toBe('D-0');
    await setRole('reviewer', 'editor');
    expect((await author.post(`${base}/${request.id}/apply`)).status).toBe(200);
    expect((await entry('D')).rawValue).toBe('reviewed');
  });

  it('stops counting the approval of an admin who lost the role, or whose account is gone', async () => {
    const request = await open(author, 'E', 'by-admin-review');
    expect((await localAdmin.post(`${base}/${request.id}/approve`)).body.status).toBe('approved');
    expect((await admin.put(`/api/users/${name('second-admin')}`, { role: 'developer' })).status).toBe(200);
    expect((await author.post(`${base}/${request.id}/apply`)).status).toBe(409);
    expect((await admin.put(`/api/users/${name('second-admin')}`, { role: 'admin' })).status).toBe(200);
    expect((await admin.delete(`/api/users/${name('second-admin')}`)).status).toBe(204);
    expect((await author.post(`${base}/${request.id}/apply`)).status).toBe(409);
    expect((await entry('E')).rawValue).toBe('E-0');
  });

  it('lets a registration add missing keys to a protected version only without values', async () => {
    const grpc = new GrpcTestClient(`127.0.0.1:${server.port}`);
    try {
      await registerVersion(grpc, serviceId, '1.0.0', [
        { key: 'A', value: 'from-the-request' },
        { key: 'Gone', value: 'chosen-by-caller' },
        { key: 'New', value: 'chosen-by-caller' },
      ]);
    } finally {
      grpc.close();
    }
    const after = await entries();
    expect(after.find((e) => e.key === 'A')?.rawValue).toBe('by-owner');
    expect(after.find((e) => e.key === 'Gone')?.rawValue).toBeNull();
    expect(after.find((e) => e.key === 'New')?.rawValue).toBeNull();
  });
});

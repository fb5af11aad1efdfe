import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startProviderHarness,
  type Caller,
  type ProviderHarness,
  type ProviderName,
  type Who,
} from '@realtime-config/test-support/provider-sign-in';

/**
 * The same route policies (canAll / canChange) and the same membership rule for every sign-in
 * provider: roles come from each provider's own claims, through the one resolveIdentity mapping.
 */
const PROVIDERS: readonly ProviderName[] = ['Local', 'OpenId', 'Jwt', 'Saml'];

const EXPECTED_POLICIES: Readonly<Record<Who, readonly string[]>> = {
  admin: ['canAll', 'canChange', 'canReveal'],
  developer: ['canChange'],
  nobody: [],
};

describe.each(PROVIDERS)('route policies and membership with the %s provider', (provider) => {
  let harness: ProviderHarness;
  const callers = {} as Record<Who, Caller>;
  const admin: Caller = (...args) => callers.admin(...args);
  const developer: Caller = (...args) => callers.developer(...args);
  const nobody: Caller = (...args) => callers.nobody(...args);

  beforeAll(async () => {
    harness = await startProviderHarness(provider, 'sqlite');
    for (const who of ['admin', 'developer', 'nobody'] as const) callers[who] = await harness.signIn(who);
  }, 60_000);

  afterAll(async () => {
    await harness?.close();
  });

  /** A service with one version and one string entry, made by the admin; returns the entry's set URL. */
  async function serviceWithEntry(name: string) {
    const service = await admin('POST', '/api/services', { name });
    expect(service.status).toBe(201);
    const serviceId = (service.body as { id: string }).id;
    const version = await admin('POST', `/api/configversions/${serviceId}`, { versionLabel: '1.0.0' });
    expect(version.status).toBe(201);
    const entries = `/api/configentries/${serviceId}/${(version.body as { id: string }).id}`;
    const entry = await admin('POST', entries, { key: 'Feature:Flag', valueType: 1, rawValue: 'old' });
    expect(entry.status).toBe(201);
    const { id, generation } = entry.body as { id: string; generation: number };
    return { serviceId, entries, id, generation };
  }

  /** The developer is refused (403, value unchanged) until the admin adds `member`, then may set the value. */
  async function expectMembershipRule(name: string, member: string): Promise<void> {
    const { serviceId, entries, id, generation } = await serviceWithEntry(name);
    const change = [{ id, rawValue: 'new', generation }];

    const refused = await developer('PUT', `${entries}/set`, change);
    expect(refused.status).toBe(403);
    expect((await admin('GET', entries)).body).toMatchObject([{ id, rawValue: 'old', generation }]);

    // Not a member of this service yet: nobody else's membership counts.
    const added = await admin('POST', `/api/services/${serviceId}/members`, { userId: member });
    expect(added.status).toBe(201);
    expect((await admin('GET', `/api/services/${serviceId}/members`)).body).toEqual(
      expect.arrayContaining([expect.objectContaining({ userId: member })]),
    );

    const set = await developer('PUT', `${entries}/set`, change);
    expect(set.status).toBe(200);
    expect((await admin('GET', entries)).body).toMatchObject([{ id, rawValue: 'new' }]);
  }

  it.each(['admin', 'developer'] as const)(
    'makes a personal access token for %s that acts with the same roles on REST',
    async (who) => {
      const made = await callers[who]('POST', '/api/auth/tokens', { name: `${provider} pipeline` });
      expect(made.status).toBe(201);
      const token = (made.body as { token: string }).token;
      const me = await fetch(`${harness.server.baseUrl}/api/auth/me`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(me.status).toBe(200);
      expect(await me.json()).toMatchObject({
        id: harness.people[who].id,
        policies: EXPECTED_POLICIES[who],
      });
    },
  );

  it.each(['admin', 'developer', 'nobody'] as const)('GET /auth/me shows the roles and policies of %s', async (who) => {
    const person = harness.people[who];
    const me = await callers[who]('GET', '/auth/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: person.id,
      email: person.email,
      provider: provider.toLowerCase(),
      roles: person.groups,
      policies: EXPECTED_POLICIES[who],
    });
  });

  it('lets the canAll admin create a service (201) and add a member (201)', async () => {
    const created = await admin('POST', '/api/services', { name: `admin-made ${provider}` });
    expect(created.status).toBe(201);
    const serviceId = (created.body as { id: string }).id;
    const added = await admin('POST', `/api/services/${serviceId}/members`, { userId: harness.people.developer.id });
    expect(added.status).toBe(201);
  });

  it('keeps the canChange developer from canAll routes (403) but lets it search (200)', async () => {
    expect((await developer('POST', '/api/services', { name: `developer-made ${provider}` })).status).toBe(403);
    const search = await developer('POST', '/api/services/search', { name: 'developer-made' });
    expect(search.status).toBe(200);
    expect(search.body).toMatchObject({ entities: [] });
  });

  it('refuses the user without a mapped role even the search (403)', async () => {
    expect((await nobody('POST', '/api/services/search', {})).status).toBe(403);
    expect((await nobody('POST', '/api/services', { name: `nobody-made ${provider}` })).status).toBe(403);
  });

  it('lets the developer set values once it is a member by its id', async () => {
    await expectMembershipRule(`members by id ${provider}`, harness.people.developer.id);
  });

  // Local users have no e-mail, so membership by e-mail only exists for the external providers.
  if (provider !== 'Local') {
    it('lets the developer set values once it is a member by its e-mail', async () => {
      await expectMembershipRule(`members by e-mail ${provider}`, harness.people.developer.email ?? '');
    });
  }
});

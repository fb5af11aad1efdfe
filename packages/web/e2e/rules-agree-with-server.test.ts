import { checkKey, checkValue, ValueType } from '@realtime-config/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type ApiClient, type TestServer } from '@realtime-config/test-support/test-server';
import { checkNewPassword, serviceRules, versionRules } from '../src/rules/form-rules.js';

// The console checks values and fields as the user types with rules/; here the real server answers the
// same samples, so the two can never drift apart unnoticed.
const SAMPLES: Record<number, string[]> = {
  [ValueType.BOOLEAN]: ['true', 'False', 'TRUE', 'yes', '1', '', ' true'],
  [ValueType.NUMBER]: ['0', '-12', '3.5', '1e3', '.5', '5.', '+7', '1e', 'abc', '', '0x10', 'Infinity', '1,5'],
  [ValueType.DATE_TIME]: [
    '2026-11-21',
    '2026-11-21T12:00',
    '2026-11-21T12:00:00.123+01:00',
    '2026-02-29',
    '2024-02-29T00:00:00Z',
    '2026-13-01',
    '21.11.2026',
    '2026-11-21T25:00:00Z',
    '',
  ],
  [ValueType.TIME_SPAN]: [
    '00:05:00',
    '1.02:03:04',
    '-00:00:01.5',
    '23:59:59.1234567',
    '24:00:00',
    '5:00',
    '00:60:00',
    '00:00:00.12345678',
    '',
  ],
  [ValueType.ENUM]: ['Live', 'Test', 'live', ' Live', 'Other', ''],
  [ValueType.ARRAY]: ['[]', '[1,"a"]', '{}', 'null', '[', '"x"', ''],
  [ValueType.JSON]: ['{}', '{"a":[1]}', '[]', 'null', '{', '1', ''],
  [ValueType.STRING]: ['', 'anything', '{"not":"checked"}'],
};

describe('the console rules agree with the server', () => {
  let server: TestServer;
  let admin: ApiClient;
  let serviceId: string;
  let versionId: string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.admin();
    serviceId = (await admin.post('/api/services', { name: 'rules' })).body.id;
    versionId = (await admin.post(`/api/configversions/${serviceId}`, { versionLabel: '1' })).body.id;
  });
  afterAll(async () => server?.close());

  it('on every value type: a value the console accepts is stored, one it refuses answers 400', async () => {
    const disagreements: string[] = [];
    for (const [type, samples] of Object.entries(SAMPLES)) {
      const valueType = Number(type);
      const enumDefinition = valueType === ValueType.ENUM ? 'Live| Test' : null;
      const entry = (
        await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
          key: `T${type}:Value`,
          valueType,
          enumDefinition,
        })
      ).body;
      let generation = entry.generation as number;
      for (const sample of samples) {
        const res = await admin.put(`/api/configentries/${serviceId}/${versionId}/set`, [
          { id: entry.id, rawValue: sample, generation },
        ]);
        if (res.status === 200) generation += 1;
        const consoleSays = checkValue(valueType, sample, enumDefinition) === null ? 200 : 400;
        if (res.status !== consoleSays)
          disagreements.push(`type ${type} ${JSON.stringify(sample)}: server ${res.status}, console ${consoleSays}`);
      }
    }
    expect(disagreements).toEqual([]);
  });

  it('on keys of new entries', async () => {
    const keys = [
      'A',
      'A:B:C',
      'A::B',
      ':A',
      'A:',
      ' : ',
      'x'.repeat(512),
      'x'.repeat(513),
      'Payments:Timeout Seconds',
      '__proto__:polluted',
      'constructor:prototype:isAdmin',
      'A:prototype',
      'A:Constructor',
      'A:__proto',
    ];
    const disagreements: string[] = [];
    for (const key of keys) {
      const res = await admin.post(`/api/configentries/${serviceId}/${versionId}`, {
        key,
        valueType: ValueType.STRING,
      });
      const consoleSays = checkKey(key) === null ? 201 : 400;
      if (res.status !== consoleSays)
        disagreements.push(`${key.slice(0, 20)}: server ${res.status}, console ${consoleSays}`);
    }
    expect(disagreements).toEqual([]);
  });

  it('on service fields (name, repository URL, contact e-mail) and version labels', async () => {
    const disagreements: string[] = [];
    const cases: [string, Record<string, string>][] = [
      ['repositoryUrl', { repositoryUrl: 'https://git.example.com/a' }],
      ['repositoryUrl', { repositoryUrl: 'HTTP://example.com' }],
      ['repositoryUrl', { repositoryUrl: 'ftp://example.com' }],
      ['repositoryUrl', { repositoryUrl: 'example.com/repo' }],
      ['repositoryUrl', { repositoryUrl: 'https://exa mple.com' }],
      ['contactEmail', { contactEmail: 'team@example.com' }],
      ['contactEmail', { contactEmail: 'first.last+tag@sub.example.org' }],
      ['contactEmail', { contactEmail: 'team@' }],
      ['contactEmail', { contactEmail: 'team example.com' }],
      ['contactEmail', { contactEmail: 'a@b' }],
      ['name', { name: 'x'.repeat(201) }],
    ];
    for (const [i, [field, body]] of cases.entries()) {
      const res = await admin.post('/api/services', { name: `svc-${i}`, ...body });
      const value = body[field] ?? '';
      const consoleSays = serviceRules[field as keyof typeof serviceRules](value) === null ? 201 : 400;
      if (res.status !== consoleSays)
        disagreements.push(`${field} ${JSON.stringify(value)}: server ${res.status}, console ${consoleSays}`);
    }
    for (const label of ['1.0.0', 'x'.repeat(200), 'x'.repeat(201)]) {
      const res = await admin.post(`/api/configversions/${serviceId}`, { versionLabel: label });
      const consoleSays = versionRules.versionLabel(label) === null ? 201 : 400;
      if (res.status !== consoleSays)
        disagreements.push(`label ${label.length} chars: server ${res.status}, console ${consoleSays}`);
    }
    expect(disagreements).toEqual([]);
  });

  it('on new passwords: what the console refuses, the server refuses too', async () => {
    for (const [username, password] of [
      ['zoe', 'short'],
      ['zoe-the-long-name', 'zoe-the-long-name'],
      ['yan', 'elevenchars'],
    ] as const) {
      expect(checkNewPassword(username, password)).not.toBeNull();
      expect((await admin.post('/api/users', { username, password, role: 'developer' })).status).toBe(400);
    }
    expect(checkNewPassword('xavier', 'a-perfectly-fine-passphrase')).toBeNull();
    expect(
      (
        await admin.post('/api/users', {
          username: 'xavier',
          password: 'a-perfectly-fine-passphrase',
          role: 'developer',
        })
      ).status,
    ).toBe(201);
  });
});

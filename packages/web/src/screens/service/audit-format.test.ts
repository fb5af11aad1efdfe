import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '@realtime-config/protocol/rest';
import { changeSummary, entityName } from './audit-format';

const record = (overrides: Partial<AuditRecord>): AuditRecord => ({
  id: 'r1',
  num: 1,
  serviceId: 's1',
  entityType: 'Entry',
  entityId: 'e1',
  action: 'ValueSet',
  userId: 'olga',
  userName: 'olga',
  timestamp: '2026-11-26T09:30:00.000000Z',
  versionId: 'v1',
  versionLabel: '1.0.0',
  changes: {},
  ...overrides,
});

describe('audit records of change requests in words', () => {
  it('names a change request by its title and leaves its list of changes out of the summary', () => {
    const created = record({
      entityType: 'ChangeRequest',
      entityId: 'c1',
      action: 'Created',
      changes: {
        after: { title: 'Longer timeout', description: null, status: 'open', changes: [{ id: 'e1', rawValue: '45' }] },
      },
    });
    expect(entityName(created)).toBe('Longer timeout');
    expect(changeSummary(created)).toEqual(['title: Longer timeout', 'status: open']);
  });

  it('says which change request a value set came from and who approved it', () => {
    const applied = record({
      changes: {
        before: { key: 'Payments:TimeoutSeconds', rawValue: '30' },
        after: { key: 'Payments:TimeoutSeconds', rawValue: '45' },
        changeRequest: { id: 'c1', title: 'Longer timeout', approvers: ['olga', 'sam'] },
      },
    });
    expect(changeSummary(applied)).toEqual([
      'value: 30 → 45',
      'from change request “Longer timeout”, approved by olga, sam',
    ]);
  });
});

describe('audit records of secrets in words', () => {
  // The shape the API answers: the value left out, `redacted` and the value's fingerprint instead.
  const secret = (fingerprint: string | null) => ({
    key: 'Payments:ApiSecret',
    rawValue: null,
    isSecret: true,
    redacted: true,
    fingerprint,
  });

  it('shows a secret created with a value as redacted, with its fingerprint, never as null', () => {
    const created = record({ action: 'Created', changes: { after: secret('9f86d081884c7d659a2feaa0c55ad015') } });
    expect(changeSummary(created)).toEqual(['value: •••••• (secret, fingerprint 9f86d081884c7d65)']);
  });

  it('shows a new value of a secret by its fingerprints, and nothing of the redaction fields', () => {
    const set = record({ changes: { before: secret('aaaaaaaaaaaaaaaa1111'), after: secret('bbbbbbbbbbbbbbbb2222') } });
    expect(changeSummary(set)).toEqual([
      'value: •••••• (secret, fingerprint aaaaaaaaaaaaaaaa) → •••••• (secret, fingerprint bbbbbbbbbbbbbbbb)',
    ]);
  });
});

describe('audit records of overrides in words', () => {
  it('shows overrides by label as key=value and their values, never as the API’s field names', () => {
    const set = record({
      action: 'OverridesSet',
      changes: {
        before: { key: 'Http:TimeoutSeconds', rawValue: '30', overrides: [], generation: 2 },
        after: {
          key: 'Http:TimeoutSeconds',
          rawValue: '30',
          overrides: [
            { labels: { region: 'eu', tier: 'gold' }, rawValue: '60' },
            { labels: { region: 'eu' }, rawValue: '45' },
          ],
          generation: 3,
        },
      },
    });
    expect(changeSummary(set)).toEqual(['overrides: none → region=eu, tier=gold: 60; region=eu: 45']);
    const secret = record({
      action: 'OverridesSet',
      changes: {
        before: { key: 'Api:Key', overrides: [], redacted: true },
        after: {
          key: 'Api:Key',
          overrides: [{ labels: { region: 'eu' }, rawValue: null, redacted: true }],
          redacted: true,
        },
      },
    });
    expect(changeSummary(secret)).toEqual(['overrides: none → region=eu: ••••••']);
  });
});

describe('audit records of rollouts in words', () => {
  it('names a rollout by its keys and says where it stood and why it ended', () => {
    const stepped = record({
      entityType: 'Rollout',
      entityId: 'r1',
      action: 'RolloutStepped',
      changes: {
        after: { status: 'running', step: 1, percent: 50, steps: [10, 50, 100], keys: ['A:B', 'C'], reason: null },
      },
    });
    expect(entityName(stepped)).toBe('A:B, C');
    expect(changeSummary(stepped)).toEqual(['status: running', 'at 50 % (step 2 of 3: 10, 50, 100 %)']);
    const rolledBack = record({
      entityType: 'Rollout',
      entityId: 'r1',
      action: 'RolloutRolledBack',
      changes: {
        after: {
          status: 'rolled_back',
          step: 0,
          percent: 10,
          steps: [10, 100],
          keys: ['C'],
          reason: 'rolled back by olga',
        },
      },
    });
    expect(changeSummary(rolledBack)).toEqual([
      'status: rolled back',
      'stopped at 10 % (step 1 of 2: 10, 100 %)',
      'reason: rolled back by olga',
    ]);
  });
});

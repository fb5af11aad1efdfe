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

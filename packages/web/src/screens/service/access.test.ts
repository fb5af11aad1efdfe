import { describe, expect, it } from 'vitest';
import type { Me, Member } from '@realtime-config/protocol/rest';
import { accessOf } from './use-service';

const me = (overrides: Partial<Me>): Me => ({
  id: 'erin',
  email: 'Erin@example.com',
  name: 'Erin',
  provider: 'local',
  roles: ['developer'],
  policies: ['canChange'],
  permissions: ['canChange'],
  passwordChangeRequired: false,
  ...overrides,
});
const member = (userId: string, role: Member['role']): Member => ({
  userId,
  role,
  addedAt: '2026-01-01T00:00:00.000000Z',
  addedBy: 'admin',
});

describe('what the console lets a user do to a service', () => {
  it('follows the member role: viewers read, editors write, owners also manage', () => {
    expect(accessOf(me({}), [member('erin', 'viewer')])).toMatchObject({ role: 'viewer', write: false, manage: false });
    expect(accessOf(me({}), [member('erin', 'editor')])).toMatchObject({ role: 'editor', write: true, manage: false });
    expect(accessOf(me({}), [member('erin', 'owner')])).toMatchObject({ role: 'owner', write: true, manage: true });
  });

  it('finds the member by id or e-mail without regard to case, and nobody else', () => {
    expect(accessOf(me({}), [member('ERIN@example.com', 'editor')]).write).toBe(true);
    expect(accessOf(me({}), [member('olga', 'owner')])).toMatchObject({ role: null, write: false, manage: false });
  });

  it('makes canAll users owners of every service, members or not', () => {
    expect(accessOf(me({ policies: ['canAll', 'canChange'] }), [])).toMatchObject({
      role: 'owner',
      canAll: true,
      write: true,
      manage: true,
    });
  });
});

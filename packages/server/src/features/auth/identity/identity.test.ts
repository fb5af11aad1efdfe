import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../platform/config/load-config.js';
import { claimValues, policiesFor, resolveIdentity, type ClaimSettings } from './identity.js';

const WS = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/';
const MS_ROLE = 'http://schemas.microsoft.com/ws/2008/06/identity/claims/role';

/** The claim settings a server gets from its real configuration (defaults plus the given arguments). */
function settingsFrom(argv: readonly string[] = []): ClaimSettings {
  const config = loadConfig({
    cwd: mkdtempSync(path.join(tmpdir(), 'rc-identity-')),
    env: {},
    argv: ['--Authentication:Provider=Local', ...argv],
  });
  return {
    idClaimType: config.authentication.idClaimType,
    emailClaimType: config.authentication.emailClaimType,
    roleClaimType: config.authentication.roleClaimType,
    authorization: config.authorization,
  };
}

const defaults = settingsFrom();

describe('claimValues', () => {
  it.each([
    ['sub', `${WS}nameidentifier`],
    ['email', `${WS}emailaddress`],
    ['role', MS_ROLE],
    ['name', `${WS}name`],
  ])('treats the short name %s and the URI %s as the same claim', (short, uri) => {
    expect(claimValues({ [short]: 'a' }, uri)).toEqual(['a']);
    expect(claimValues({ [uri]: 'b' }, short)).toEqual(['b']);
    expect(claimValues({ [short]: 'a', [uri]: 'b' }, short)).toEqual(['a', 'b']);
  });

  it('collects arrays and single values, and skips empty strings and objects', () => {
    expect(claimValues({ groups: ['a', 'b'] }, 'groups')).toEqual(['a', 'b']);
    expect(claimValues({ groups: 'a' }, 'groups')).toEqual(['a']);
    expect(claimValues({ groups: '' }, 'groups')).toEqual([]);
    expect(claimValues({ groups: [{ nested: 'x' }, 'ok'] }, 'groups')).toEqual(['ok']);
    expect(claimValues({ other: 'x' }, 'groups')).toEqual([]);
  });

  it('does not mix up unrelated claims', () => {
    expect(claimValues({ sub: 'id', email: 'e@x', name: 'n' }, 'role')).toEqual([]);
    expect(claimValues({ roles: 'r' }, 'role')).toEqual([]);
  });
});

describe('policiesFor', () => {
  const authorization = defaults.authorization;

  it('gives admin every policy, developer canChange only, others nothing', () => {
    expect(policiesFor(['admin'], authorization)).toEqual(['canAll', 'canChange', 'canReveal']);
    expect(policiesFor(['developer'], authorization)).toEqual(['canChange']);
    expect(policiesFor(['guest'], authorization)).toEqual([]);
    expect(policiesFor([], authorization)).toEqual([]);
  });

  it('admits every canAll role to canChange even when the canChange list does not name it', () => {
    const custom = { ...authorization, policies: { canAll: ['ops'], canChange: ['dev'], canReveal: [] } };
    expect(policiesFor(['ops'], custom)).toEqual(['canAll', 'canChange']);
    expect(policiesFor(['dev'], custom)).toEqual(['canChange']);
    expect(policiesFor(['admin', 'developer'], custom)).toEqual([]);
  });

  it('reads the policy role lists from configuration', () => {
    const custom = settingsFrom([
      '--Authorization:Policies:canAll:0=platform-admins',
      '--Authorization:Policies:canChange:0=engineers',
    ]);
    expect(policiesFor(['platform-admins'], custom.authorization)).toEqual(['canAll', 'canChange']);
    expect(policiesFor(['engineers'], custom.authorization)).toEqual(['canChange']);
    expect(policiesFor(['admin'], custom.authorization)).toEqual(['canReveal']);
  });
});

describe('resolveIdentity', () => {
  it('uses the default role claim types role, roles, groups, name', () => {
    expect(defaults.authorization.roleClaimTypes).toEqual(['role', 'roles', 'groups', 'name']);
    expect(defaults.authorization.policies).toEqual({
      canAll: ['admin'],
      canChange: ['developer'],
      canReveal: ['admin'],
    });
  });

  it('resolves id, e-mail and name from short-name claims (typical OIDC token)', () => {
    const identity = resolveIdentity(
      'openid',
      { sub: 'u-1', email: 'ann@example.com', name: 'Ann', roles: ['developer'] },
      defaults,
    );
    expect(identity).toMatchObject({ id: 'u-1', email: 'ann@example.com', name: 'Ann', provider: 'openid' });
    expect(identity?.policies).toEqual(['canChange']);
    expect(identity?.roles).toContain('developer');
  });

  it('resolves the same identity from URI claims (typical SAML assertion)', () => {
    const identity = resolveIdentity(
      'saml',
      {
        [`${WS}nameidentifier`]: 'u-1',
        [`${WS}emailaddress`]: 'ann@example.com',
        [`${WS}name`]: 'Ann',
        [MS_ROLE]: 'admin',
      },
      defaults,
    );
    expect(identity).toMatchObject({ id: 'u-1', email: 'ann@example.com', name: 'Ann', provider: 'saml' });
    expect(identity?.roles).toEqual(expect.arrayContaining(['admin']));
    expect(identity?.policies).toEqual(['canAll', 'canChange', 'canReveal']);
  });

  it('collects roles from role, roles, groups and name, single values and arrays, without duplicates', () => {
    const identity = resolveIdentity(
      'jwt',
      { sub: 'u', role: 'r1', roles: ['r2', 'r3'], groups: 'g1', name: 'developer', [MS_ROLE]: ['r1', 'r4'] },
      defaults,
    );
    expect([...(identity?.roles ?? [])].sort()).toEqual(['developer', 'g1', 'r1', 'r2', 'r3', 'r4']);
    expect(identity?.policies).toEqual(['canChange']);
  });

  it('also searches the configured RoleClaimType, a short name or a URI', () => {
    const short = settingsFrom(['--Authentication:RoleClaimType=permissions']);
    expect(resolveIdentity('jwt', { sub: 'u', permissions: ['admin'] }, short)?.policies).toEqual([
      'canAll',
      'canChange',
      'canReveal',
    ]);
    expect(resolveIdentity('jwt', { sub: 'u', permissions: ['admin'] }, defaults)?.policies).toEqual([]);

    const uri = settingsFrom(['--Authentication:RoleClaimType=http://x/custom']);
    expect(resolveIdentity('saml', { sub: 'u', 'http://x/custom': 'developer' }, uri)?.roles).toEqual(['developer']);
    expect(resolveIdentity('saml', { sub: 'u', 'http://x/custom': 'developer' }, uri)?.policies).toEqual(['canChange']);

    const groups = settingsFrom(['--Authentication:RoleClaimType=groups']);
    expect(resolveIdentity('openid', { sub: 'u', groups: ['admin', 'x'] }, groups)?.policies).toEqual([
      'canAll',
      'canChange',
      'canReveal',
    ]);
  });

  it('drops name from the role claim types when configured, so an editable display name grants nothing', () => {
    const withName = resolveIdentity('openid', { sub: 'u', name: 'admin' }, defaults);
    expect(withName?.policies).toEqual(['canAll', 'canChange', 'canReveal']);

    const noName = settingsFrom(['--Authorization:RoleClaimTypes:0=role', '--Authorization:RoleClaimTypes:1=groups']);
    expect(noName.authorization.roleClaimTypes).toEqual(['role', 'groups']);
    const identity = resolveIdentity(
      'openid',
      { sub: 'u', name: 'admin', [`${WS}name`]: 'admin', groups: 'developer' },
      noName,
    );
    expect(identity?.name).toBe('admin');
    expect(identity?.roles).toEqual(['developer']);
    expect(identity?.policies).toEqual(['canChange']);
  });

  it('uses the configured IdClaimType and EmailClaimType', () => {
    const custom = settingsFrom(['--Authentication:IdClaimType=oid', '--Authentication:EmailClaimType=upn']);
    const identity = resolveIdentity(
      'openid',
      { oid: 'object-1', sub: 'subject-1', upn: 'ann@corp.example', email: 'other@x' },
      custom,
    );
    expect(identity).toMatchObject({ id: 'object-1', email: 'ann@corp.example' });
  });

  it('answers null e-mail and name when the claims carry none', () => {
    expect(resolveIdentity('jwt', { sub: 'u' }, defaults)).toEqual({
      id: 'u',
      email: null,
      name: null,
      provider: 'jwt',
      roles: [],
      policies: [],
    });
  });

  it('answers null when the claims carry no user id', () => {
    expect(resolveIdentity('jwt', {}, defaults)).toBeNull();
    expect(resolveIdentity('jwt', { email: 'a@x', role: 'admin' }, defaults)).toBeNull();
    expect(resolveIdentity('jwt', { sub: '' }, defaults)).toBeNull();
    expect(resolveIdentity('jwt', { sub: [] }, defaults)).toBeNull();
  });

  it('gives the e-mail that service membership matches on', () => {
    // The membership check compares the service's members with the identity's id and e-mail.
    const identity = resolveIdentity(
      'openid',
      { [`${WS}nameidentifier`]: 'u-9', email: 'dev@example.com', roles: 'developer' },
      defaults,
    );
    expect(identity?.id).toBe('u-9');
    expect(identity?.email).toBe('dev@example.com');
    expect(identity?.policies).toEqual(['canChange']);
  });
});

import { describe, expect, it } from 'vitest';
import { hashPassword, PBKDF2_ITERATIONS, verifyPassword } from './password.js';

const FORMAT = /^pbkdf2-sha256\$310000\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

describe('password hashing', () => {
  it('stores pbkdf2-sha256$310000$<salt base64>$<hash base64>', async () => {
    expect(PBKDF2_ITERATIONS).toBe(310_000);
    const hash = await hashPassword('correct horse');
    const match = FORMAT.exec(hash);
    expect(match).not.toBeNull();
    expect(Buffer.from(match?.[1] ?? '', 'base64').length).toBeGreaterThanOrEqual(16);
    expect(Buffer.from(match?.[2] ?? '', 'base64').length).toBe(32);
    expect(hash).not.toContain('correct horse');
  });

  it('verifies the right password and rejects others', async () => {
    const hash = await hashPassword('correct horse');
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('correct hors', hash)).toBe(false);
    expect(await verifyPassword('Correct horse', hash)).toBe(false);
    expect(await verifyPassword('', hash)).toBe(false);
  });

  it('uses a fresh salt every time, so equal passwords give different hashes that both verify', async () => {
    const [a, b] = await Promise.all([hashPassword('same password'), hashPassword('same password')]);
    expect(a).not.toBe(b);
    expect(a.split('$')[2]).not.toBe(b.split('$')[2]);
    expect(await verifyPassword('same password', a)).toBe(true);
    expect(await verifyPassword('same password', b)).toBe(true);
  });

  it('verifies hashes made with another iteration count (the count is read from the stored hash)', async () => {
    const hash = await hashPassword('pw-12345');
    const [, , salt] = hash.split('$');
    const { pbkdf2Sync } = await import('node:crypto');
    const derived = pbkdf2Sync('pw-12345', Buffer.from(salt ?? '', 'base64'), 1000, 32, 'sha256').toString('base64');
    expect(await verifyPassword('pw-12345', `pbkdf2-sha256$1000$${salt}$${derived}`)).toBe(true);
    expect(await verifyPassword('pw-12345', `pbkdf2-sha256$1001$${salt}$${derived}`)).toBe(false);
  });

  it.each([
    '',
    'plain-text-password',
    'pbkdf2-sha256$310000$onlysalt',
    'pbkdf2-sha256$abc$c2FsdA==$aGFzaA==',
    'pbkdf2-sha256$0$c2FsdA==$aGFzaA==',
    'pbkdf2-sha256$-5$c2FsdA==$aGFzaA==',
    'pbkdf2-sha1$310000$c2FsdA==$aGFzaA==',
    'pbkdf2-sha256$310000$c2FsdA==$',
    'pbkdf2-sha256$310000$c2FsdA==$aGFzaA==$extra',
  ])('answers false, without throwing, for the malformed stored hash %j', async (stored) => {
    await expect(verifyPassword('anything', stored)).resolves.toBe(false);
    await expect(verifyPassword('', stored)).resolves.toBe(false);
  });
});

import { pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const pbkdf2Async = promisify(pbkdf2);

/** PBKDF2 with SHA-256 and 310000 iterations (docs/rest-api.md, Users). */
export const PBKDF2_ITERATIONS = 310_000;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const hash = await pbkdf2Async(password, salt, PBKDF2_ITERATIONS, KEY_LENGTH, 'sha256');
  return `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/**
 * Checks a password against a stored hash in constant time. A malformed stored hash never matches,
 * but still costs a full derivation so timing does not reveal it.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  const iterations = Number(parts[1]);
  const valid = parts.length === 4 && parts[0] === 'pbkdf2-sha256' && Number.isInteger(iterations) && iterations > 0;
  const salt = Buffer.from(valid ? (parts[2] ?? '') : '', 'base64');
  const expected = Buffer.from(valid ? (parts[3] ?? '') : '', 'base64');
  const actual = await pbkdf2Async(
    password,
    salt,
    valid ? iterations : PBKDF2_ITERATIONS,
    expected.length > 0 ? expected.length : KEY_LENGTH,
    'sha256',
  );
  return valid && expected.length === actual.length && timingSafeEqual(expected, actual);
}

let dummyHash: Promise<string> | undefined;

/** A real hash of a random password: checking against it costs what checking a real user costs. */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString('hex'));
  return dummyHash;
}

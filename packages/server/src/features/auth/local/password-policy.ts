import { dictionary } from '@zxcvbn-ts/language-common';

/** At least this many characters (docs/rest-api.md, Users). */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

/** The ~50,000 most common passwords, from zxcvbn-ts (maintained with the zxcvbn data sets). */
let commonPasswords: ReadonlySet<string> | undefined;

function isCommon(password: string): boolean {
  commonPasswords ??= new Set(dictionary['passwords-common'].map((p) => String(p).toLowerCase()));
  return commonPasswords.has(password.toLowerCase());
}

/**
 * What is wrong with a new password for this user, as messages for the `errors` field of a
 * problem; empty when it is acceptable.
 */
export function passwordProblems(username: string, password: string): string[] {
  const problems: string[] = [];
  if ([...password].length < MIN_PASSWORD_LENGTH) problems.push(`must have at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > MAX_PASSWORD_LENGTH) problems.push(`must have at most ${MAX_PASSWORD_LENGTH} characters`);
  if (password.toLowerCase() === username.toLowerCase()) problems.push('must differ from the username');
  if (isCommon(password)) problems.push('is too common; choose another');
  return problems;
}

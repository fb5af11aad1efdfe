/**
 * Field rules of the console's forms, the same as the server's request schemas (docs/rest-api.md).
 * Each returns a message for the field, or null when the value is acceptable. The common-password
 * list stays on the server (50,000 words); its answer is shown on the field.
 */

export const MIN_PASSWORD_LENGTH = 12;

const HTTP_URL = /^https?:\/\/[^\s/$.?#][^\s]*$/i;
// The server uses Ajv's "email" format; this is the same shape (local@domain.tld, no spaces).
const EMAIL =
  /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
const USERNAME = /^[^\s/]+$/;

export function required(label: string, max: number) {
  return (value: string): string | null => {
    if (value.trim() === '') return `${label} is required`;
    return value.length > max ? `${label} has at most ${max} characters` : null;
  };
}

export function optionalMax(label: string, max: number) {
  return (value: string): string | null => (value.length > max ? `${label} has at most ${max} characters` : null);
}

export const serviceRules = {
  name: required('Name', 200),
  description: optionalMax('Description', 4000),
  repositoryUrl: (value: string): string | null =>
    value === '' || (HTTP_URL.test(value) && value.length <= 2000) ? null : 'Enter an absolute http(s) URL',
  contactEmail: (value: string): string | null =>
    value === '' || (EMAIL.test(value) && value.length <= 320) ? null : 'Enter an e-mail address',
};

export const versionRules = {
  versionLabel: required('Version label', 200),
  description: optionalMax('Description', 4000),
};

export const webhookRules = {
  url: (value: string): string | null =>
    HTTP_URL.test(value.trim()) && value.trim().length <= 2048 ? null : 'Enter an absolute http(s) URL',
  description: optionalMax('Description', 1000),
  keyPrefix: optionalMax('Key prefix', 512),
};

/** A validator's URL and description follow the webhooks' rules (the server checks both alike). */
export const validatorRules = { url: webhookRules.url, description: webhookRules.description };

export function checkUsername(value: string): string | null {
  if (value === '') return 'Username is required';
  if (value.length > 200) return 'Username has at most 200 characters';
  if (value === 'me') return 'The username "me" is reserved';
  return USERNAME.test(value) ? null : 'Username has no spaces or slashes';
}

/** What the browser can tell about a new password; the server also refuses common ones. */
export function checkNewPassword(username: string, password: string): string | null {
  if ([...password].length < MIN_PASSWORD_LENGTH) return `must have at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.toLowerCase() === username.toLowerCase()) return 'must differ from the username';
  return null;
}

/** Empty form values travel as null, as the API expects for absent optional fields. */
export function orNull(value: string): string | null {
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

/**
 * The form in which service names must be unique: case-insensitive in every language (Unicode case
 * folding after NFC normalization), the same in SQLite and PostgreSQL because it is computed here.
 */
export function serviceNameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

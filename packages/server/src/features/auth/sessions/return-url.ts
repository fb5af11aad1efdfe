/**
 * The return URL of a sign-in, kept only when it is a path on this site (`/…`, not `//…` and not
 * `/\…`, which browsers treat as another host); anything else becomes `/`, so a crafted sign-in
 * link cannot send the user to another site (open redirect).
 */
export function safeReturnUrl(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/')) return '/';
  const second = value.charAt(1);
  if (second === '/' || second === '\\') return '/';
  // Control characters (tabs, newlines) are dropped by URL parsers and could turn `/\t/` into `//`.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return '/';
  return value;
}

/**
 * The Jwt provider's access token. Kept in memory only (never in storage, where a script injected into
 * the page could read it later); a reload signs in again through the provider's session.
 */
let token: string | null = null;

export const authToken = {
  get: (): string | null => token,
  set: (value: string | null): void => {
    token = value;
  },
};

export function bearerHeaders(): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

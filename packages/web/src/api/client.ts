import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '@realtime-config/protocol/rest';
import { bearerHeaders } from './auth-token';
import { ProblemError, problemOf } from './problem';

const bearer: Middleware = {
  onRequest({ request }) {
    for (const [name, value] of Object.entries(bearerHeaders())) request.headers.set(name, value);
    return request;
  },
};

/** The REST client, typed by the paths of the server's OpenAPI document (@realtime-config/protocol/rest). */
export const api = createClient<paths>({ baseUrl: globalThis.location?.origin ?? '', credentials: 'same-origin' });
api.use(bearer);

/** Listeners told when the server says the session is gone (401), so the console shows the sign-in page. */
const signedOutListeners = new Set<() => void>();
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/**
 * The data of a successful answer, or a thrown ProblemError with the server's problem details. Every
 * query and mutation goes through here, so no failure is silent.
 */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) {
    // A 401 of /auth itself (sign-in refused, nobody signed in yet) is that call's answer, not a lost session.
    if (response.status === 401 && !new URL(response.url, 'http://x').pathname.startsWith('/auth/')) {
      for (const listener of signedOutListeners) listener();
    }
    throw new ProblemError(problemOf(error, response));
  }
  return data as T;
}

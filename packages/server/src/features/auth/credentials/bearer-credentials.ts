import type { Caller, Identity } from '../../../core/index.js';
import { API_KEY_PREFIX, type ApiKeys } from '../api-keys/api-keys.js';
import { PERSONAL_TOKEN_PREFIX, type PersonalTokens } from '../tokens/personal-tokens.js';

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/** The token of an `Authorization: Bearer …` header, or undefined. */
export function bearerTokenOf(authorization: string | undefined): string | undefined {
  return authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
}

/** True for the credentials this service issues itself: API keys and personal access tokens. */
export const isOwnCredential = (token: string): boolean =>
  token.startsWith(API_KEY_PREFIX) || token.startsWith(PERSONAL_TOKEN_PREFIX);

/** Who a bearer credential stands for, and which kind it was; or why it does not stand for anyone. */
export type BearerResolution =
  { readonly caller: Caller; readonly via: 'apiKey' | 'token' | 'provider' } | { readonly refused: string };

export interface BearerCredentials {
  resolve(token: string): Promise<BearerResolution>;
}

/**
 * The one reading of a bearer credential, for REST and gRPC alike: an API key (`rck_…`) acts for
 * its service within its scopes, a personal access token (`rcp_…`) as its user, anything else is
 * the active provider's (a Jwt) when it has bearer tokens.
 */
export function createBearerCredentials(deps: {
  readonly apiKeys: Pick<ApiKeys, 'authenticate'>;
  readonly tokens: Pick<PersonalTokens, 'authenticate'>;
  readonly verifyBearer?: ((token: string) => Promise<Identity | null>) | undefined;
}): BearerCredentials {
  return {
    async resolve(token) {
      if (token.startsWith(API_KEY_PREFIX)) {
        const key = await deps.apiKeys.authenticate(token);
        return key
          ? { caller: { kind: 'apiKey', key }, via: 'apiKey' }
          : { refused: 'The API key is not valid or has been revoked.' };
      }
      if (token.startsWith(PERSONAL_TOKEN_PREFIX)) {
        const identity = await deps.tokens.authenticate(token);
        return identity
          ? { caller: { kind: 'user', identity, via: 'personalToken' }, via: 'token' }
          : { refused: 'The personal access token is not valid, has expired or has been revoked.' };
      }
      const identity = deps.verifyBearer ? await deps.verifyBearer(token) : null;
      return identity
        ? { caller: { kind: 'user', identity }, via: 'provider' }
        : { refused: 'The bearer token is not valid.' };
    },
  };
}

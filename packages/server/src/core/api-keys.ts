import type { CredentialRecord, CredentialStore } from './credentials.js';

/**
 * What a service API key may do, for its own service only: `read` (GetConfig, StartSubscribe,
 * IsVersionExists, REST reads and exports), `register` (CreateVersion), `write` (value sets,
 * imports, restores, promotions), `secrets` (secret values in plaintext).
 */
export type ApiKeyScope = 'read' | 'register' | 'write' | 'secrets';
export const API_KEY_SCOPES: readonly ApiKeyScope[] = ['read', 'register', 'write', 'secrets'];
export const DEFAULT_API_KEY_SCOPES: readonly ApiKeyScope[] = ['read', 'register'];

/** A stored API key of a service: never the key itself (see CredentialRecord). */
export interface ApiKeyRecord extends CredentialRecord {
  readonly serviceId: string;
  readonly scopes: readonly ApiKeyScope[];
  readonly createdBy: string | null;
}

/** The API keys of services; a service's keys are listed oldest first. */
export type ApiKeyStore = CredentialStore<ApiKeyRecord>;

/**
 * What a service API key may do, for its own service only: `read` (GetConfig, StartSubscribe,
 * IsVersionExists, REST reads and exports), `register` (CreateVersion), `write` (value sets,
 * imports, restores, promotions), `secrets` (secret values in plaintext).
 */
export type ApiKeyScope = 'read' | 'register' | 'write' | 'secrets';
export const API_KEY_SCOPES: readonly ApiKeyScope[] = ['read', 'register', 'write', 'secrets'];
export const DEFAULT_API_KEY_SCOPES: readonly ApiKeyScope[] = ['read', 'register'];

/** A stored API key: never the key itself, only its hash and first characters. */
export interface ApiKeyRecord {
  readonly id: string;
  readonly serviceId: string;
  readonly name: string;
  readonly scopes: readonly ApiKeyScope[];
  readonly keyHash: string;
  readonly prefix: string;
  readonly createdAt: number;
  readonly createdBy: string | null;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
}

export interface ApiKeyStore {
  insert(key: ApiKeyRecord): Promise<void>;
  /** The keys of a service, oldest first, revoked ones included. */
  list(serviceId: string): Promise<ApiKeyRecord[]>;
  get(id: string): Promise<ApiKeyRecord | undefined>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  revoke(id: string, at: number): Promise<ApiKeyRecord | undefined>;
  /** Records a use unless one was recorded after `notBefore`: one write per key and interval. */
  touch(id: string, at: number, notBefore: number): Promise<void>;
}

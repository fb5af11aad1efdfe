import type { Kysely } from 'kysely';
import { API_KEY_SCOPES, type ApiKeyScope, type ApiKeyStore } from '../../core/index.js';
import type { DatabaseSchema } from '../schema.js';
import { createCredentialStore } from './credential-store.js';

/** API keys in `api_keys`, a service's oldest first. */
export function createApiKeyStore(db: Kysely<DatabaseSchema>): ApiKeyStore {
  return createCredentialStore(db, {
    table: 'api_keys',
    columns: { owner: 'service_id', hash: 'key_hash', prefix: 'key_prefix' },
    listOrder: 'asc',
    fieldsOf: (row) => ({
      serviceId: row.service_id,
      // Unknown words (written by a later release) grant nothing.
      scopes: row.scopes.split(' ').filter((s): s is ApiKeyScope => API_KEY_SCOPES.includes(s as ApiKeyScope)),
      createdBy: row.created_by,
    }),
    columnsOf: (key) => ({ service_id: key.serviceId, scopes: key.scopes.join(' '), created_by: key.createdBy }),
  });
}

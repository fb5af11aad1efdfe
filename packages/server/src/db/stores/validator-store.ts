import type { Kysely, Selectable } from 'kysely';
import type { SecretCipher, ValidatorRecord, ValidatorStore } from '../../core/index.js';
import type { DatabaseSchema, ValidatorsTable } from '../schema.js';
import { openedSigningSecret, sealValidatorSecrets, storedSigningSecret } from './webhook-secrets.js';

function toValidator(row: Selectable<ValidatorsTable>, cipher: SecretCipher): ValidatorRecord {
  return {
    id: row.id,
    serviceId: row.service_id,
    url: row.url,
    description: row.description,
    enabled: Number(row.enabled) === 1,
    secret: openedSigningSecret(cipher, row.secret),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** Validators of services; their signing secrets sealed on the way in and opened on the way out, as webhooks'. */
export function createValidatorStore(db: Kysely<DatabaseSchema>, cipher: SecretCipher): ValidatorStore {
  const ofService = (serviceId: string) =>
    db.selectFrom('validators').selectAll().where('service_id', '=', serviceId).orderBy('created_at').orderBy('id');
  return {
    async insert(v) {
      if (v.secret === null) throw new Error('a validator is created with a secret');
      await db
        .insertInto('validators')
        .values({
          id: v.id,
          service_id: v.serviceId,
          url: v.url,
          description: v.description,
          enabled: v.enabled ? 1 : 0,
          secret: storedSigningSecret(cipher, v.secret),
          created_at: v.createdAt,
          updated_at: v.updatedAt,
        })
        .execute();
    },
    async get(serviceId, id) {
      const row = await db
        .selectFrom('validators')
        .selectAll()
        .where('id', '=', id)
        .where('service_id', '=', serviceId)
        .executeTakeFirst();
      return row && toValidator(row, cipher);
    },
    async list(serviceId) {
      return (await ofService(serviceId).execute()).map((row) => toValidator(row, cipher));
    },
    async enabled(serviceId) {
      return (await ofService(serviceId).where('enabled', '=', 1).execute()).map((row) => toValidator(row, cipher));
    },
    async update(id, change) {
      await db
        .updateTable('validators')
        .set({
          url: change.url,
          description: change.description,
          enabled: change.enabled ? 1 : 0,
          updated_at: change.updatedAt,
        })
        .where('id', '=', id)
        .execute();
    },
    async delete(serviceId, id) {
      const result = await db
        .deleteFrom('validators')
        .where('id', '=', id)
        .where('service_id', '=', serviceId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    sealSecrets: (rewrap) => sealValidatorSecrets(db, cipher, rewrap),
  };
}

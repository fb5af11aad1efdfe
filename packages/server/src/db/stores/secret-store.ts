import type { Kysely } from 'kysely';
import type { SecretCipher, SecretStore } from '../../core/index.js';
import { forEachPage } from '../in-pages.js';
import { secretWireEntry, type WireEntry } from '../notice-wire.js';
import type { DatabaseSchema } from '../schema.js';
import { redactDeliveredEntry, sealSecrets } from './sealed-json.js';
import { rewrapAll } from './secret-rewrap.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Marks every object of the JSON that holds a value of the entry as secret (`sealSecrets` then seals it). */
function markSecret(value: unknown, holdsEntryValue: (o: Record<string, unknown>) => boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => markSecret(item, holdsEntryValue));
  if (!isObject(value)) return value;
  const mapped = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, markSecret(v, holdsEntryValue)]));
  return 'rawValue' in mapped && holdsEntryValue(mapped) ? { ...mapped, isSecret: true } : mapped;
}

export function createSecretStore(db: Kysely<DatabaseSchema>, cipher: SecretCipher): SecretStore {
  return {
    async sealHistoryOf(entry) {
      // Every read below goes through an index and is bounded by the entry, its version or its
      // service, not by the whole audit log or every delivery: this runs inside an entry's write.
      const sealAudit = async (row: { num: number; changes: string; entity_id: string }) => {
        const holds = (o: Record<string, unknown>) => row.entity_id === entry.id || o.id === entry.id;
        const changes = JSON.stringify(sealSecrets(markSecret(JSON.parse(row.changes), holds), cipher));
        if (changes !== row.changes) {
          await db.updateTable('audit_logs').set({ changes }).where('num', '=', row.num).execute();
        }
      };
      // The entry's own records (audit_logs_entity_idx).
      await forEachPage(
        (after: number | undefined, limit) => {
          let query = db
            .selectFrom('audit_logs')
            .select(['num', 'changes', 'entity_id'])
            .where('entity_id', '=', entry.id);
          if (after !== undefined) query = query.where('num', '>', after);
          return query.orderBy('num').limit(limit).execute();
        },
        (row) => row.num,
        sealAudit,
      );
      // The records of the version's change requests that name it (audit_logs_version_key_idx): a
      // request's records carry its version.
      await forEachPage(
        (after: number | undefined, limit) => {
          let query = db
            .selectFrom('audit_logs')
            .select(['num', 'changes', 'entity_id'])
            .where('version_id', '=', entry.versionId)
            .where('entity_type', '=', 'ChangeRequest')
            .where('changes', 'like', `%${entry.id}%`);
          if (after !== undefined) query = query.where('num', '>', after);
          return query.orderBy('num').limit(limit).execute();
        },
        (row) => row.num,
        sealAudit,
      );
      const requests = await db
        .selectFrom('change_requests')
        .select(['id', 'changes'])
        .where('version_id', '=', entry.versionId)
        .where('changes', 'like', `%${entry.id}%`)
        .execute();
      for (const row of requests) {
        const marked = markSecret(JSON.parse(row.changes), (o) => o.id === entry.id);
        const changes = JSON.stringify(sealSecrets(marked, cipher));
        if (changes !== row.changes) {
          await db.updateTable('change_requests').set({ changes }).where('id', '=', row.id).execute();
        }
      }
      // The deliveries of the service's webhooks (webhook_deliveries_webhook_idx).
      const webhooksOfService = db
        .selectFrom('webhooks')
        .innerJoin('versions', 'versions.service_id', 'webhooks.service_id')
        .select('webhooks.id')
        .where('versions.id', '=', entry.versionId);
      await forEachPage(
        (after: number | undefined, limit) => {
          let query = db
            .selectFrom('webhook_deliveries')
            .select(['num', 'payload'])
            .where('webhook_id', 'in', webhooksOfService)
            .where('payload', 'like', `%${entry.id}%`);
          if (after !== undefined) query = query.where('num', '>', after);
          return query.orderBy('num').limit(limit).execute();
        },
        (row) => row.num,
        async (row) => {
          const payload = redactDeliveredEntry(row.payload, entry.id, cipher);
          if (payload !== null) {
            await db.updateTable('webhook_deliveries').set({ payload }).where('num', '=', row.num).execute();
          }
        },
      );
      // The version's change log (change_log_version_ts_idx): its rows name keys, not entry ids.
      await forEachPage(
        (after: number | undefined, limit) => {
          let query = db.selectFrom('change_log').select(['id', 'payload']).where('version_id', '=', entry.versionId);
          if (after !== undefined) query = query.where('id', '>', after);
          return query.orderBy('id').limit(limit).execute();
        },
        (row) => row.id,
        async (row) => {
          const wire = JSON.parse(row.payload) as { e: WireEntry[] };
          let changed = false;
          wire.e = wire.e.map((e) => {
            if (e[0] !== entry.key || e[5] === 1) return e;
            changed = true;
            return secretWireEntry(e, (value) => cipher.seal(value));
          });
          if (changed) {
            await db
              .updateTable('change_log')
              .set({ payload: JSON.stringify(wire) })
              .where('id', '=', row.id)
              .execute();
          }
        },
      );
    },

    rewrapAll: () => rewrapAll(db, cipher),
  };
}

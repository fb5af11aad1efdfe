import type { Kysely } from 'kysely';
import { UnreadableSecret, type SecretCipher, type SecretStore } from '../../core/index.js';
import type { DatabaseSchema } from '../schema.js';
import { redactDeliveredEntry, rewrapSecrets, sealSecrets } from './sealed-json.js';
import { sealSigningSecrets, sealValidatorSecrets } from './webhook-secrets.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Marks every object of the JSON that holds a value of the entry as secret (`sealSecrets` then seals it). */
function markSecret(value: unknown, holdsEntryValue: (o: Record<string, unknown>) => boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => markSecret(item, holdsEntryValue));
  if (!isObject(value)) return value;
  const mapped = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, markSecret(v, holdsEntryValue)]));
  return 'rawValue' in mapped && holdsEntryValue(mapped) ? { ...mapped, isSecret: true } : mapped;
}

type WireEntry = [string, string | null, number, number, 0 | 1, 1?];

/** A value kept as it is when no configured key opens it (it reads as unreadable anyway). */
function rewrapOrKeep(cipher: SecretCipher, sealed: string): string | null {
  try {
    return cipher.rewrap(sealed);
  } catch (error) {
    if (error instanceof UnreadableSecret) return null;
    throw error;
  }
}

export function createSecretStore(db: Kysely<DatabaseSchema>, cipher: SecretCipher): SecretStore {
  const rewrapJsonColumn = async (table: 'audit_logs' | 'change_requests'): Promise<number> => {
    let count = 0;
    const rows = await db
      .selectFrom(table)
      .select(['id', 'changes'])
      .where('changes', 'like', '%"sealedValue"%')
      .execute();
    for (const row of rows) {
      let result: { text: string; count: number } | null;
      try {
        result = rewrapSecrets(row.changes, cipher);
      } catch (error) {
        if (error instanceof UnreadableSecret) continue;
        throw error;
      }
      if (!result) continue;
      await db.updateTable(table).set({ changes: result.text }).where('id', '=', row.id).execute();
      count += result.count;
    }
    return count;
  };

  return {
    async sealHistoryOf(entry) {
      const audits = await db
        .selectFrom('audit_logs')
        .select(['id', 'changes', 'entity_id'])
        .where((eb) =>
          eb.or([
            eb('entity_id', '=', entry.id),
            eb.and([eb('entity_type', '=', 'ChangeRequest'), eb('changes', 'like', `%${entry.id}%`)]),
          ]),
        )
        .execute();
      for (const row of audits) {
        const holds = (o: Record<string, unknown>) => row.entity_id === entry.id || o.id === entry.id;
        const changes = JSON.stringify(sealSecrets(markSecret(JSON.parse(row.changes), holds), cipher));
        if (changes !== row.changes)
          await db.updateTable('audit_logs').set({ changes }).where('id', '=', row.id).execute();
      }
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
      const deliveries = await db
        .selectFrom('webhook_deliveries')
        .select(['id', 'payload'])
        .where('payload', 'like', `%${entry.id}%`)
        .execute();
      for (const row of deliveries) {
        const payload = redactDeliveredEntry(row.payload, entry.id, cipher);
        if (payload !== null) {
          await db.updateTable('webhook_deliveries').set({ payload }).where('id', '=', row.id).execute();
        }
      }
      const notices = await db
        .selectFrom('change_log')
        .select(['id', 'payload'])
        .where('version_id', '=', entry.versionId)
        .execute();
      for (const row of notices) {
        const wire = JSON.parse(row.payload) as { e: WireEntry[] };
        let changed = false;
        wire.e = wire.e.map((e) => {
          if (e[0] !== entry.key || e[5] === 1) return e;
          changed = true;
          return [e[0], e[1] === null ? null : cipher.seal(e[1]), e[2], e[3], e[4], 1];
        });
        if (changed) {
          await db
            .updateTable('change_log')
            .set({ payload: JSON.stringify(wire) })
            .where('id', '=', row.id)
            .execute();
        }
      }
    },

    async rewrapAll() {
      let count = 0;
      const entries = await db
        .selectFrom('entries')
        .select(['id', 'raw_value'])
        .where('is_secret', '=', 1)
        .where('raw_value', 'is not', null)
        .execute();
      for (const row of entries) {
        const rewrapped = rewrapOrKeep(cipher, row.raw_value as string);
        if (rewrapped === null) continue;
        await db.updateTable('entries').set({ raw_value: rewrapped }).where('id', '=', row.id).execute();
        count += 1;
      }
      // Webhook signing secrets: sealed ones re-wrapped, any still in plaintext sealed.
      count += await sealSigningSecrets(db, cipher, true);
      count += await sealValidatorSecrets(db, cipher, true);
      count += await rewrapJsonColumn('audit_logs');
      count += await rewrapJsonColumn('change_requests');
      const notices = await db.selectFrom('change_log').select(['id', 'payload']).execute();
      for (const row of notices) {
        const wire = JSON.parse(row.payload) as { e: WireEntry[] };
        let changed = 0;
        wire.e = wire.e.map((e) => {
          if (e[5] !== 1 || e[1] === null) return e;
          const rewrapped = rewrapOrKeep(cipher, e[1]);
          if (rewrapped === null) return e;
          changed += 1;
          return [e[0], rewrapped, e[2], e[3], e[4], 1];
        });
        if (changed > 0) {
          await db
            .updateTable('change_log')
            .set({ payload: JSON.stringify(wire) })
            .where('id', '=', row.id)
            .execute();
          count += changed;
        }
      }
      // The values the server seals in settings (the fingerprint key, the session secret): not counted.
      const settings = await db
        .selectFrom('settings')
        .select(['key', 'value'])
        .where('value', 'like', 'rcsec1.%')
        .execute();
      for (const row of settings) {
        const rewrapped = rewrapOrKeep(cipher, row.value);
        if (rewrapped === null) continue;
        await db
          .updateTable('settings')
          .set({ value: rewrapped })
          .where('key', '=', row.key)
          .where('value', '=', row.value)
          .execute();
      }
      return count;
    },
  };
}

import type { Kysely } from 'kysely';
import { UnreadableSecret, type SecretCipher } from '../../core/index.js';
import { forEachPage } from '../in-pages.js';
import type { DatabaseSchema } from '../schema.js';
import { secretWireEntry, type WireEntry } from '../notice-wire.js';
import { rewrapSecrets } from './sealed-json.js';
import { sealSigningSecrets, sealValidatorSecrets } from './webhook-secrets.js';

/** A value kept as it is when no configured key opens it (it reads as unreadable anyway). */
function rewrapOrKeep(cipher: SecretCipher, sealed: string): string | null {
  try {
    return cipher.rewrap(sealed);
  } catch (error) {
    if (error instanceof UnreadableSecret) return null;
    throw error;
  }
}

/**
 * The master key's rotation (SecretStore.rewrapAll): every sealed value's data key wrapped by the
 * current master key. Each table is read a page at a time, so no read holds more than a page of
 * rows however many there are; each row is rewritten only if it still holds what was read, so a
 * change made meanwhile is never undone.
 */
export async function rewrapAll(db: Kysely<DatabaseSchema>, cipher: SecretCipher): Promise<number> {
  let count = 0;
  await forEachPage(
    (after: string | undefined, limit) => {
      let query = db
        .selectFrom('entries')
        .select(['id', 'raw_value'])
        .where('is_secret', '=', 1)
        .where('raw_value', 'is not', null);
      if (after !== undefined) query = query.where('id', '>', after);
      return query.orderBy('id').limit(limit).execute();
    },
    (row) => row.id,
    async (row) => {
      const sealed = row.raw_value as string;
      const rewrapped = rewrapOrKeep(cipher, sealed);
      if (rewrapped === null) return;
      const result = await db
        .updateTable('entries')
        .set({ raw_value: rewrapped })
        .where('id', '=', row.id)
        .where('raw_value', '=', sealed)
        .executeTakeFirst();
      count += Number(result.numUpdatedRows);
    },
  );
  count += await rewrapEntryJson(db, cipher, 'overrides');
  count += await rewrapEntryJson(db, cipher, 'rollout');
  // Webhook signing secrets: sealed ones re-wrapped, any still in plaintext sealed (a few per service).
  count += await sealSigningSecrets(db, cipher, true);
  count += await sealValidatorSecrets(db, cipher, true);
  count += await rewrapJsonColumn(db, cipher, 'audit_logs');
  count += await rewrapJsonColumn(db, cipher, 'change_requests');
  count += await rewrapJsonColumn(db, cipher, 'rollouts');
  count += await rewrapChangeLog(db, cipher);
  await rewrapSettings(db, cipher);
  return count;
}

/** Secret entries' override values and rollout values (JSON with `sealedValue`s, entry-store's storedOverrides, storedRollout). */
async function rewrapEntryJson(
  db: Kysely<DatabaseSchema>,
  cipher: SecretCipher,
  column: 'overrides' | 'rollout',
): Promise<number> {
  let count = 0;
  await forEachPage(
    (after: string | undefined, limit) => {
      let query = db
        .selectFrom('entries')
        .select(['id', `${column} as stored`])
        .where('is_secret', '=', 1)
        .where(column, 'like', '%"sealedValue"%');
      if (after !== undefined) query = query.where('id', '>', after);
      return query.orderBy('id').limit(limit).execute();
    },
    (row) => row.id,
    async (row) => {
      const stored = row.stored as string;
      const result = rewrappedJson(cipher, stored);
      if (!result) return;
      const updated = await db
        .updateTable('entries')
        .set({ [column]: result.text })
        .where('id', '=', row.id)
        .where(column, '=', stored)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) > 0) count += result.count;
    },
  );
  return count;
}

/** The stored JSON's sealed values re-wrapped: null when none changed (or none can be opened). */
function rewrappedJson(cipher: SecretCipher, text: string): { text: string; count: number } | null {
  try {
    return rewrapSecrets(text, cipher);
  } catch (error) {
    if (error instanceof UnreadableSecret) return null;
    throw error;
  }
}

/** The sealed values inside a table's JSON `changes` (audit records, change requests), by their unique id. */
async function rewrapJsonColumn(
  db: Kysely<DatabaseSchema>,
  cipher: SecretCipher,
  table: 'audit_logs' | 'change_requests' | 'rollouts',
): Promise<number> {
  let count = 0;
  await forEachPage(
    (after: string | undefined, limit) => {
      let query = db.selectFrom(table).select(['id', 'changes']).where('changes', 'like', '%"sealedValue"%');
      if (after !== undefined) query = query.where('id', '>', after);
      return query.orderBy('id').limit(limit).execute();
    },
    (row) => row.id,
    async (row) => {
      const result = rewrappedJson(cipher, row.changes);
      if (!result) return;
      const updated = await db
        .updateTable(table)
        .set({ changes: result.text })
        .where('id', '=', row.id)
        .where('changes', '=', row.changes)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) > 0) count += result.count;
    },
  );
  return count;
}

/** The change log's secret values (sealed, marked by a sixth element 1 in the wire form). */
async function rewrapChangeLog(db: Kysely<DatabaseSchema>, cipher: SecretCipher): Promise<number> {
  let count = 0;
  await forEachPage(
    (after: number | undefined, limit) => {
      let query = db.selectFrom('change_log').select(['id', 'payload']);
      if (after !== undefined) query = query.where('id', '>', after);
      return query.orderBy('id').limit(limit).execute();
    },
    (row) => row.id,
    async (row) => {
      const wire = JSON.parse(row.payload) as { e: WireEntry[] };
      let changed = 0;
      wire.e = wire.e.map((e) => {
        if (e[5] !== 1) return e;
        // The value and each override's: a value no configured key opens is kept as it is.
        return secretWireEntry(e, (sealed) => {
          const rewrapped = rewrapOrKeep(cipher, sealed);
          if (rewrapped === null) return sealed;
          changed += 1;
          return rewrapped;
        });
      });
      if (changed === 0) return;
      const updated = await db
        .updateTable('change_log')
        .set({ payload: JSON.stringify(wire) })
        .where('id', '=', row.id)
        .where('payload', '=', row.payload)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) > 0) count += changed;
    },
  );
  return count;
}

/** The values the server seals in settings (the fingerprint key, the session secret): a few rows, not counted. */
async function rewrapSettings(db: Kysely<DatabaseSchema>, cipher: SecretCipher): Promise<void> {
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
}

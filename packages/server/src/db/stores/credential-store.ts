import type { Insertable, Kysely, Selectable } from 'kysely';
import type { CredentialRecord, CredentialStore } from '../../core/index.js';
import type { DatabaseSchema } from '../schema.js';

/** The tables of the credentials the server issues: API keys of services, personal tokens of users. */
type CredentialTableName = 'api_keys' | 'personal_tokens';

/** The columns every credential table has under the same names. */
interface SharedColumns {
  id: string;
  name: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}
/** The columns every credential table has under names of its own. */
type NamedColumns = 'key_hash' | 'key_prefix' | 'token_hash' | 'token_prefix';
type Column<T extends CredentialTableName> = keyof DatabaseSchema[T] & string;

/**
 * Where one kind of credential is kept: its table, its names of the columns that hold its owner
 * (a service, a user), the secret's hash and its first characters, the order of an owner's list,
 * and the columns and fields only this kind has.
 */
export interface CredentialTable<T extends CredentialTableName, R extends CredentialRecord> {
  readonly table: T;
  readonly columns: { readonly owner: Column<T>; readonly hash: Column<T>; readonly prefix: Column<T> };
  /** An owner's list by creation: oldest first or newest first. */
  readonly listOrder: 'asc' | 'desc';
  /** The fields of a record that only this kind has, from its row. */
  readonly fieldsOf: (row: Selectable<DatabaseSchema[T]>) => Omit<R, keyof CredentialRecord>;
  /** The columns of a row that only this kind has, from its record. */
  readonly columnsOf: (record: R) => Omit<Insertable<DatabaseSchema[T]>, keyof SharedColumns | NamedColumns>;
}

type AnyCredentialRow = SharedColumns & Record<string, unknown>;

/**
 * The one store of issued credentials, each kind on its own table: found by the hash of the
 * secret, revoked for good, a use recorded at most once per interval.
 */
export function createCredentialStore<T extends CredentialTableName, R extends CredentialRecord>(
  database: Kysely<DatabaseSchema>,
  kind: CredentialTable<T, R>,
): CredentialStore<R> {
  // Kysely types a statement by its table, chosen here at run time: the statements see every
  // credential table as its shared columns, and the columns it names its own way by name.
  const db = database as unknown as Kysely<Record<string, AnyCredentialRow>>;
  const table: string = kind.table;
  const { owner, hash, prefix }: Record<keyof CredentialTable<T, R>['columns'], string> = kind.columns;
  const optionalMicros = (us: unknown) => (us === null ? null : Number(us));
  const toRecord = (row: Record<string, unknown>): R => {
    const shared: CredentialRecord = {
      id: row.id as string,
      name: row.name as string,
      secretHash: row[hash] as string,
      prefix: row[prefix] as string,
      createdAt: Number(row.created_at),
      lastUsedAt: optionalMicros(row.last_used_at),
      revokedAt: optionalMicros(row.revoked_at),
    };
    return { ...shared, ...kind.fieldsOf(row as unknown as Selectable<DatabaseSchema[T]>) } as R;
  };
  const one = async (column: string, value: string) => {
    const row = await db.selectFrom(table).selectAll().where(column, '=', value).executeTakeFirst();
    return row && toRecord(row);
  };
  return {
    async insert(record) {
      await db
        .insertInto(table)
        .values({
          id: record.id,
          name: record.name,
          [hash]: record.secretHash,
          [prefix]: record.prefix,
          created_at: record.createdAt,
          last_used_at: record.lastUsedAt,
          revoked_at: record.revokedAt,
          ...kind.columnsOf(record),
        })
        .execute();
    },
    async listOf(ownerId) {
      const rows = await db
        .selectFrom(table)
        .selectAll()
        .where(owner, '=', ownerId)
        .orderBy('created_at', kind.listOrder)
        .orderBy('id')
        .execute();
      return rows.map(toRecord);
    },
    get: (id) => one('id', id),
    findByHash: (secretHash) => one(hash, secretHash),
    async revoke(id, at) {
      const row = await db
        .updateTable(table)
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .returningAll()
        .executeTakeFirst();
      return row && toRecord(row);
    },
    async revokeAllOf(ownerId, at) {
      const result = await db
        .updateTable(table)
        .set({ revoked_at: at })
        .where(owner, '=', ownerId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
    async touch(id, at, notBefore) {
      await db
        .updateTable(table)
        .set({ last_used_at: at })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', notBefore)]))
        .execute();
    },
  };
}

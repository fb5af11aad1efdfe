import type { Kysely } from 'kysely';
import { createAuditStore, type AuditStore } from '../features/audit/audit-store.js';
import { createApiKeyStore, type ApiKeyStore } from '../features/auth/api-key-store.js';
import { createSettingsStore, type SettingsStore } from '../features/auth/settings-store.js';
import { createUserStore, type UserStore } from '../features/auth/user-store.js';
import { createEntryStore, type EntryStore } from '../features/entries/entry-store.js';
import type { ChangeFeed } from '../features/realtime/change-feed.js';
import type { ChangeNotice } from '../features/realtime/change-hub.js';
import { createServiceStore, type ServiceStore } from '../features/services/service-store.js';
import { createVersionStore, type VersionStore } from '../features/versions/version-store.js';
import type { Database, Dialect } from './database.js';
import { translateDatabaseError } from './database-errors.js';
import type { DatabaseSchema } from './schema.js';

export interface Stores {
  readonly services: ServiceStore;
  readonly versions: VersionStore;
  readonly entries: EntryStore;
  readonly audit: AuditStore;
  readonly users: UserStore;
  readonly apiKeys: ApiKeyStore;
  readonly settings: SettingsStore;
}

export interface WriteContext extends Stores {
  /** Queues a change for the realtime stream; it reaches subscribers only if the transaction commits. */
  recordChange(notice: ChangeNotice): void;
}

/**
 * The only way commands reach storage: reads through `read` (or `readConsistent` for several reads
 * that must see one state), writes through `write`, which runs one transaction and hands the
 * recorded changes to the change feed.
 */
export interface UnitOfWork {
  readonly read: Stores;
  readConsistent<T>(fn: (stores: Stores) => Promise<T>): Promise<T>;
  write<T>(fn: (ctx: WriteContext) => Promise<T>): Promise<T>;
}

function createStores(db: Kysely<DatabaseSchema>, dialect: Dialect): Stores {
  return {
    services: createServiceStore(db),
    versions: createVersionStore(db, dialect),
    entries: createEntryStore(db),
    audit: createAuditStore(db),
    users: createUserStore(db),
    apiKeys: createApiKeyStore(db),
    settings: createSettingsStore(db),
  };
}

const rethrowTranslated = (error: unknown): never => {
  throw translateDatabaseError(error);
};

/** The same store whose failures say UNAVAILABLE when the database cannot be reached. */
function translatingErrors<T extends object>(store: T): T {
  const wrapped = Object.entries(store).map(([name, member]): [string, unknown] => [
    name,
    typeof member === 'function'
      ? (...args: unknown[]) =>
          (member as (...a: unknown[]) => Promise<unknown>).apply(store, args).catch(rethrowTranslated)
      : member,
  ]);
  return Object.fromEntries(wrapped) as T;
}

export function createUnitOfWork(database: Database, feed: ChangeFeed): UnitOfWork {
  const { dialect } = database;
  // SQLite has one writer. Keeping commit and in-process publication under one lock makes the
  // publication order equal the commit order (PostgreSQL gets that from NOTIFY instead).
  let tail: Promise<unknown> = Promise.resolve();
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const run = tail.then(work, work);
    tail = run.catch(() => undefined);
    return run;
  };

  const write = async <T>(fn: (ctx: WriteContext) => Promise<T>): Promise<T> => {
    const notices: ChangeNotice[] = [];
    const result = await database.transaction(async (tx) => {
      const value = await fn({ ...createStores(tx, dialect), recordChange: (notice) => notices.push(notice) });
      if (notices.length > 0) await feed.announce(tx, notices);
      return value;
    });
    if (notices.length > 0) feed.committed(notices);
    return result;
  };

  const readStores = createStores(database.db, dialect);
  return {
    read: Object.fromEntries(
      Object.entries(readStores).map(([name, store]) => [name, translatingErrors(store)]),
    ) as unknown as Stores,
    readConsistent: (fn) =>
      (dialect === 'postgres'
        ? database.db
            .transaction()
            .setIsolationLevel('repeatable read')
            .execute((tx) => fn(createStores(tx, dialect)))
        : database.transaction((tx) => fn(createStores(tx, dialect)))
      ).catch(rethrowTranslated),
    write: (fn) => (dialect === 'sqlite' ? serialized(() => write(fn)) : write(fn)).catch(rethrowTranslated),
  };
}

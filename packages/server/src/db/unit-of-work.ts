import type { Kysely } from 'kysely';
import { createAuditStore, type AuditStore } from '../features/audit/audit-store.js';
import { createUserStore, type UserStore } from '../features/auth/user-store.js';
import { createEntryStore, type EntryStore } from '../features/entries/entry-store.js';
import type { ChangeHub, ChangeNotice } from '../features/realtime/change-hub.js';
import { createServiceStore, type ServiceStore } from '../features/services/service-store.js';
import { createVersionStore, type VersionStore } from '../features/versions/version-store.js';
import type { Database, Dialect } from './database.js';
import type { DatabaseSchema } from './schema.js';

export interface Stores {
  readonly services: ServiceStore;
  readonly versions: VersionStore;
  readonly entries: EntryStore;
  readonly audit: AuditStore;
  readonly users: UserStore;
}

export interface WriteContext extends Stores {
  /** Queues a change for the realtime stream; it is published only if the transaction commits. */
  recordChange(notice: ChangeNotice): void;
}

/**
 * The only way commands reach storage: reads through `read`, writes through `write`, which runs
 * one transaction and publishes the recorded changes after it commits.
 */
export interface UnitOfWork {
  readonly read: Stores;
  write<T>(fn: (ctx: WriteContext) => Promise<T>): Promise<T>;
}

function createStores(db: Kysely<DatabaseSchema>, dialect: Dialect): Stores {
  return {
    services: createServiceStore(db),
    versions: createVersionStore(db, dialect),
    entries: createEntryStore(db),
    audit: createAuditStore(db),
    users: createUserStore(db),
  };
}

export function createUnitOfWork(database: Database, hub: ChangeHub): UnitOfWork {
  return {
    read: createStores(database.db, database.dialect),
    async write(fn) {
      const notices: ChangeNotice[] = [];
      const result = await database.transaction((tx) =>
        fn({ ...createStores(tx, database.dialect), recordChange: (notice) => notices.push(notice) }),
      );
      for (const notice of notices) hub.publish(notice);
      return result;
    },
  };
}

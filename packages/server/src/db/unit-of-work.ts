import type { Kysely } from 'kysely';
import {
  followerWriteRefused,
  type ChangeFeed,
  type ChangeNotice,
  type Outbox,
  type ReportedChange,
  type SecretCipher,
  type Stores,
  type UnitOfWork,
  type WriteContext,
} from '../core/index.js';
import type { Database, Dialect, Tx } from './database.js';
import { translateDatabaseError } from './database-errors.js';
import type { DatabaseSchema } from './schema.js';
import { createApiKeyStore } from './stores/api-key-store.js';
import { createAuditStore } from './stores/audit-store.js';
import { createChangeRequestStore } from './stores/change-request-store.js';
import { createRolloutStore } from './stores/rollout-store.js';
import { createEntryStore } from './stores/entry-store.js';
import { createPersonalTokenStore } from './stores/personal-token-store.js';
import { createPresenceStore } from './stores/presence-store.js';
import { createSamlStateStore } from './stores/saml-state-store.js';
import { createSecretStore } from './stores/secret-store.js';
import { createServiceStore } from './stores/service-store.js';
import { createSessionStore } from './stores/session-store.js';
import { createSettingsStore } from './stores/settings-store.js';
import { createUserStore } from './stores/user-store.js';
import { createValidatorStore } from './stores/validator-store.js';
import { createVersionStore } from './stores/version-store.js';
import { createWebhookStore } from './stores/webhook-store.js';

function createStores(db: Kysely<DatabaseSchema>, dialect: Dialect, cipher: SecretCipher): Stores {
  return {
    services: createServiceStore(db),
    versions: createVersionStore(db, dialect),
    entries: createEntryStore(db, dialect, cipher),
    audit: createAuditStore(db, dialect, cipher),
    users: createUserStore(db),
    apiKeys: createApiKeyStore(db),
    tokens: createPersonalTokenStore(db),
    changeRequests: createChangeRequestStore(db, dialect, cipher),
    rollouts: createRolloutStore(db, dialect, cipher),
    settings: createSettingsStore(db),
    sessions: createSessionStore(db),
    saml: createSamlStateStore(db),
    webhooks: createWebhookStore(db, dialect, cipher),
    validators: createValidatorStore(db, cipher),
    secrets: createSecretStore(db, cipher),
    presence: createPresenceStore(db, dialect),
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

/** Writes no deliveries: for tools that change nothing webhooks report. */
const NO_OUTBOX: Outbox<Stores> = { enqueue: () => Promise.resolve(false), committed: () => undefined };

/**
 * The unit of work of core/, on this database: the SQL stores, one transaction per write. The
 * changes a write reports become webhook deliveries (`outbox`) in the same transaction. While
 * `readOnly` says so (a follower's standby), a write is refused before it begins.
 */
export function createUnitOfWork(
  database: Database,
  feed: ChangeFeed<Tx>,
  cipher: SecretCipher,
  outbox: Outbox<Stores> = NO_OUTBOX,
  readOnly: () => boolean = () => false,
): UnitOfWork {
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
    const reported: ReportedChange[] = [];
    let delivering = false;
    const result = await database.transaction(async (tx) => {
      const stores = createStores(tx, dialect, cipher);
      const value = await fn({
        ...stores,
        recordChange: (notice) => notices.push(notice),
        report: (change) => reported.push(change),
      });
      if (reported.length > 0) delivering = await outbox.enqueue(stores, reported);
      if (notices.length > 0) await feed.announce(tx, notices);
      return value;
    });
    if (notices.length > 0) feed.committed(notices);
    if (delivering) outbox.committed();
    return result;
  };

  const readStores = createStores(database.db, dialect, cipher);
  return {
    get readOnly() {
      return readOnly();
    },
    read: Object.fromEntries(
      Object.entries(readStores).map(([name, store]) => [name, translatingErrors(store)]),
    ) as unknown as Stores,
    readConsistent: (fn) =>
      (dialect === 'postgres'
        ? database.db
            .transaction()
            .setIsolationLevel('repeatable read')
            .execute((tx) => fn(createStores(tx, dialect, cipher)))
        : database.transaction((tx) => fn(createStores(tx, dialect, cipher)))
      ).catch(rethrowTranslated),
    write: (fn) => {
      if (readOnly()) return Promise.reject(followerWriteRefused());
      return (dialect === 'sqlite' ? serialized(() => write(fn)) : write(fn)).catch(rethrowTranslated);
    },
  };
}

import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import type { Db } from '../../db/database.js';
import { isUniqueViolation } from '../../db/database-errors.js';
import type { Clock } from '../../platform/clock.js';

/**
 * The ids of the authentication requests we sent, in the database so that the instance receiving
 * the response knows the request another instance sent. node-saml's cache interface: it saves an id
 * when it builds a request, reads it to check InResponseTo, and removes it once answered.
 */
export class SamlRequestStore implements CacheProvider {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** How long the user may take at the identity provider. */
    private readonly lifetimeMs: number,
  ) {}

  async saveAsync(key: string, value: string): Promise<CacheItem | null> {
    const now = this.clock.nowMicros();
    // Expire the requests never answered, so the table stays small.
    await this.db
      .deleteFrom('saml_requests')
      .where('created_at', '<', now - this.lifetimeMs * 1000)
      .execute();
    try {
      await this.db.insertInto('saml_requests').values({ id: key, created_at: now }).execute();
    } catch (error) {
      if (isUniqueViolation(error)) return null;
      throw error;
    }
    return { value, createdAt: Math.floor(now / 1000) };
  }

  async getAsync(key: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('saml_requests')
      .select(['id', 'created_at'])
      .where('id', '=', key)
      .executeTakeFirst();
    if (!row || Number(row.created_at) < this.clock.nowMicros() - this.lifetimeMs * 1000) return null;
    return new Date(Math.floor(Number(row.created_at) / 1000)).toISOString();
  }

  async removeAsync(key: string | null): Promise<string | null> {
    if (key === null) return null;
    const deleted = await this.db.deleteFrom('saml_requests').where('id', '=', key).executeTakeFirst();
    return deleted.numDeletedRows > 0n ? key : null;
  }
}

/** Assertion ids already accepted: an assertion opens one session, once, on any instance. */
export class SamlAssertionStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Records the assertion as used; false when it was used before (a replay). */
  async markUsed(assertionId: string, expiresAtMicros: number): Promise<boolean> {
    await this.db.deleteFrom('saml_assertions').where('expires_at', '<', this.clock.nowMicros()).execute();
    try {
      await this.db.insertInto('saml_assertions').values({ id: assertionId, expires_at: expiresAtMicros }).execute();
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }
}

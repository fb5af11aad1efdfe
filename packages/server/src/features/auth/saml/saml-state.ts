import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import type { UnitOfWork } from '../../../core/index.js';
import type { Clock } from '../../../platform/clock.js';

/**
 * The ids of the authentication requests we sent, in the database so that the instance receiving
 * the response knows the request another instance sent. node-saml's cache interface: it saves an id
 * when it builds a request, reads it to check InResponseTo, and removes it once answered.
 */
export class SamlRequestCache implements CacheProvider {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    /** How long the user may take at the identity provider. */
    private readonly lifetimeMs: number,
  ) {}

  async saveAsync(key: string, value: string): Promise<CacheItem | null> {
    const now = this.clock.nowMicros();
    const added = await this.uow.read.saml.addRequest(key, now, now - this.lifetimeMs * 1000);
    return added ? { value, createdAt: Math.floor(now / 1000) } : null;
  }

  async getAsync(key: string): Promise<string | null> {
    const createdAt = await this.uow.read.saml.requestCreatedAt(key);
    if (createdAt === undefined || createdAt < this.clock.nowMicros() - this.lifetimeMs * 1000) return null;
    return new Date(Math.floor(createdAt / 1000)).toISOString();
  }

  async removeAsync(key: string | null): Promise<string | null> {
    if (key === null) return null;
    return (await this.uow.read.saml.removeRequest(key)) ? key : null;
  }
}

/** Records an accepted assertion as used; false when it was used before (a replay), on any instance. */
export function markAssertionUsed(
  uow: UnitOfWork,
  clock: Clock,
  assertionId: string,
  expiresAtMicros: number,
): Promise<boolean> {
  return uow.read.saml.markAssertionUsed(assertionId, expiresAtMicros, clock.nowMicros());
}

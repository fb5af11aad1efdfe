import type {
  Actor,
  AuditChanges,
  CredentialRecord,
  CredentialStore,
  Stores,
  UnitOfWork,
  WriteContext,
} from '../../../core/index.js';
import { hashOfSecret, issueSecret } from '../../../platform/bearer-secret.js';
import type { Clock } from '../../../platform/clock.js';
import type { AppError } from '../../../platform/errors.js';
import type { IdGenerator } from '../../../platform/ids.js';

/** `last_used_at` is written at most this often per credential: a busy client must not cost a write per call. */
export const LAST_USED_RESOLUTION_MICROS = 60 * 1_000_000;

/** One kind of credential the server issues. */
export interface CredentialKind<R extends CredentialRecord> {
  /** Every secret of the kind starts with it (`rck_`, `rcp_`), told apart from others at a glance. */
  readonly prefix: string;
  readonly storeOf: (stores: Stores) => CredentialStore<R>;
  /** Who holds it: an API key's service, a token's user. */
  readonly ownerOf: (credential: R) => string;
  /** What a request for a credential that is not the owner's (or is no one's) answers. */
  readonly notFound: (id: string, ownerId: string) => AppError;
  readonly auditEntity: 'ApiKey' | 'Token';
}

/**
 * The rules every credential the server issues follows, whatever its kind (a service's API key, a
 * user's personal token): a random secret shown once and kept only as its SHA-256 (see
 * issueSecret); found by that hash, so no secret is ever compared in our code and there is nothing
 * to time; refused once revoked, for good; its use recorded at most once per
 * LAST_USED_RESOLUTION_MICROS, and not at all on a follower's read-only standby.
 */
export class IssuedCredentials<R extends CredentialRecord> {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly kind: CredentialKind<R>,
  ) {}

  /** A new credential's fields that every kind has, and its secret: the only time the secret is shown. */
  issue(name: string, now: number): { readonly secret: string; readonly fields: CredentialRecord } {
    const { secret, hash, prefix } = issueSecret(this.kind.prefix);
    const fields = {
      id: this.ids.newId(),
      name,
      secretHash: hash,
      prefix,
      createdAt: now,
      lastUsedAt: null,
      revokedAt: null,
    };
    return { secret, fields };
  }

  /**
   * What a presented secret stands for: its live (not revoked) credential as `accept` takes it (a
   * token checks its expiry and its maker too), its use recorded once accepted; null for anything else.
   */
  async authenticate<T>(
    secret: string,
    accept: (credential: R, now: number) => T | null | Promise<T | null>,
  ): Promise<T | null> {
    const store = this.kind.storeOf(this.uow.read);
    const found = await store.findByHash(hashOfSecret(secret));
    if (!found || found.revokedAt !== null) return null;
    const now = this.clock.nowMicros();
    const accepted = await accept(found, now);
    if (accepted === null) return null;
    const notBefore = now - LAST_USED_RESOLUTION_MICROS;
    // A follower's standby takes no writes (docs/regions.md): uses there are not recorded.
    if (!this.uow.readOnly && (found.lastUsedAt === null || found.lastUsedAt < notBefore)) {
      await store.touch(found.id, now, notBefore);
    }
    return accepted;
  }

  /**
   * Revokes a credential of `ownerId` within a write: another owner's or an unknown one answers the
   * kind's 404. Answers it before and after, or undefined if it was revoked already (nothing changed).
   */
  async revoke(
    ctx: WriteContext,
    ownerId: string,
    id: string,
    at: number,
  ): Promise<{ before: R; after: R } | undefined> {
    const store = this.kind.storeOf(ctx);
    const before = await store.get(id);
    if (!before || this.kind.ownerOf(before) !== ownerId) throw this.kind.notFound(id, ownerId);
    const after = await store.revoke(id, at);
    return after && { before, after };
  }

  /** The audit record of a credential's creation or revocation, in its service (API keys) or none (tokens). */
  auditRecord(
    actor: Actor,
    change: { id: string; serviceId: string | null; action: 'Created' | 'Deleted'; at: number; changes: AuditChanges },
  ) {
    return {
      id: this.ids.newId(),
      serviceId: change.serviceId,
      entityType: this.kind.auditEntity,
      entityId: change.id,
      action: change.action,
      ...actor,
      timestamp: change.at,
      changes: change.changes,
    };
  }
}

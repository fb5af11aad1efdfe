import {
  auditView,
  type Actor,
  type CurrentIdentities,
  type Identity,
  type PersonalTokenRecord,
  type UnitOfWork,
} from '../../../core/index.js';
import { hashOfSecret, issueSecret } from '../../../platform/bearer-secret.js';
import type { Clock } from '../../../platform/clock.js';
import { AppError } from '../../../platform/errors.js';
import type { IdGenerator } from '../../../platform/ids.js';

/** Every personal access token starts with this, told apart at a glance from API keys (`rck_`) and Jwts. */
export const PERSONAL_TOKEN_PREFIX = 'rcp_';
/** `last_used_at` is written at most this often per token. */
const LAST_USED_RESOLUTION_MICROS = 60 * 1_000_000;
const MICROS_PER_DAY = 24 * 60 * 60 * 1_000_000;

/** A token as its owner sees it: never the token nor its hash. */
export type PersonalTokenView = Pick<
  PersonalTokenRecord,
  'id' | 'name' | 'prefix' | 'createdAt' | 'expiresAt' | 'lastUsedAt' | 'revokedAt'
>;

const viewOf = (t: PersonalTokenRecord): PersonalTokenView => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  createdAt: t.createdAt,
  expiresAt: t.expiresAt,
  lastUsedAt: t.lastUsedAt,
  revokedAt: t.revokedAt,
});

export interface PersonalTokenSettings {
  /** Authentication:Tokens:MaxLifetimeDays: the longest a token lives, and the lifetime of one without expiry. */
  readonly maxLifetimeDays: number;
  /** Who the maker of a token is now: the roles it acts with. */
  readonly identities: CurrentIdentities;
}

/**
 * Personal access tokens (`rcp_…`): a person's credential for pipelines and scripts, with every
 * provider. A token acts as the user who made it, with the roles of the session that made it (a
 * Local user's current role, read on every use); it expires, and its owner can revoke it. Only the
 * SHA-256 of a token is stored (it is a long random secret).
 */
export class PersonalTokens {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly settings: PersonalTokenSettings,
  ) {}

  /** Makes a token for the caller; the returned `token` is the only time it is ever shown. */
  create(
    identity: Identity,
    input: { name: string; expiresAt: number | null },
  ): Promise<PersonalTokenView & { token: string }> {
    const now = this.clock.nowMicros();
    const longest = now + this.settings.maxLifetimeDays * MICROS_PER_DAY;
    if (input.expiresAt !== null && input.expiresAt <= now) {
      throw AppError.invalid('A token must expire in the future.', { expiresAt: ['is not in the future'] });
    }
    const { secret: token, hash, prefix } = issueSecret(PERSONAL_TOKEN_PREFIX);
    const record: PersonalTokenRecord = {
      id: this.ids.newId(),
      userId: identity.id,
      provider: identity.provider,
      identity: { email: identity.email, name: identity.name, roles: identity.roles },
      name: input.name,
      tokenHash: hash,
      prefix,
      createdAt: now,
      // Later than the longest lifetime is clamped to it, as is "no expiry".
      expiresAt: Math.min(input.expiresAt ?? longest, longest),
      lastUsedAt: null,
      revokedAt: null,
    };
    return this.uow.write(async (ctx) => {
      await ctx.tokens.insert(record);
      await ctx.audit.append(this.auditRecord(identity, record, 'Created'));
      return { ...viewOf(record), token };
    });
  }

  /** The tokens of a user (the caller's own, or anyone's for canAll: the route decides), newest first. */
  async list(userId: string): Promise<PersonalTokenView[]> {
    return (await this.uow.read.tokens.listOf(userId)).map(viewOf);
  }

  /**
   * Revokes a token of `owner` (a token of anyone else answers 404): the caller's own, or, for
   * canAll, any user's; revoking it again changes nothing. Audited as the caller's act.
   */
  revoke(identity: Identity, owner: string, id: string): Promise<void> {
    return this.uow.write(async (ctx) => {
      const token = await ctx.tokens.get(id);
      if (!token || token.userId !== owner) throw AppError.notFound(`Token ${id} was not found.`);
      if (await ctx.tokens.revoke(id, this.clock.nowMicros())) {
        await ctx.audit.append(this.auditRecord(identity, token, 'Deleted'));
      }
    });
  }

  /** The identity a live token stands for, recording its use; null for anything else. */
  async authenticate(token: string): Promise<Identity | null> {
    const found = await this.uow.read.tokens.findByHash(hashOfSecret(token));
    const now = this.clock.nowMicros();
    if (!found || found.revokedAt !== null || found.expiresAt <= now) return null;
    const identity = await this.identityOf(found);
    if (!identity) return null;
    // A follower's standby takes no writes (docs/regions.md): uses there are not recorded.
    if (!this.uow.readOnly && (found.lastUsedAt === null || found.lastUsedAt < now - LAST_USED_RESOLUTION_MICROS)) {
      await this.uow.read.tokens.touch(found.id, now, now - LAST_USED_RESOLUTION_MICROS);
    }
    return identity;
  }

  private identityOf(token: PersonalTokenRecord): Promise<Identity | null> {
    return this.settings.identities.identityOf(this.uow.read.users, {
      id: token.userId,
      provider: token.provider,
      ...token.identity,
    });
  }

  private auditRecord(identity: Identity, token: PersonalTokenRecord, action: 'Created' | 'Deleted') {
    const actor: Actor = { userId: identity.id, userName: identity.name ?? identity.email ?? identity.id };
    return {
      id: this.ids.newId(),
      serviceId: null,
      entityType: 'Token' as const,
      entityId: token.id,
      action,
      ...actor,
      timestamp: this.clock.nowMicros(),
      changes: action === 'Created' ? { after: auditView(viewOf(token)) } : { before: auditView(viewOf(token)) },
    };
  }
}

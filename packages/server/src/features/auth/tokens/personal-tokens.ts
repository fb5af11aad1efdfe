import {
  actorOf,
  auditView,
  type CurrentIdentities,
  type Identity,
  type PersonalTokenRecord,
  type UnitOfWork,
} from '../../../core/index.js';
import type { Clock } from '../../../platform/clock.js';
import { AppError } from '../../../platform/errors.js';
import type { IdGenerator } from '../../../platform/ids.js';
import { IssuedCredentials } from '../credentials/issued-credentials.js';

/** Every personal access token starts with this, told apart at a glance from API keys (`rck_`) and Jwts. */
export const PERSONAL_TOKEN_PREFIX = 'rcp_';
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
 * Local user's current role, read on every use); it expires, and its owner can revoke it. Issued,
 * found and revoked like every credential of ours (IssuedCredentials).
 */
export class PersonalTokens {
  private readonly credentials: IssuedCredentials<PersonalTokenRecord>;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    ids: IdGenerator,
    private readonly settings: PersonalTokenSettings,
  ) {
    this.credentials = new IssuedCredentials(uow, clock, ids, {
      prefix: PERSONAL_TOKEN_PREFIX,
      storeOf: (stores) => stores.tokens,
      ownerOf: (token) => token.userId,
      notFound: (id) => AppError.notFound(`Token ${id} was not found.`),
      auditEntity: 'Token',
    });
  }

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
    const { secret: token, fields } = this.credentials.issue(input.name, now);
    const record: PersonalTokenRecord = {
      ...fields,
      userId: identity.id,
      provider: identity.provider,
      identity: { email: identity.email, name: identity.name, roles: identity.roles },
      // Later than the longest lifetime is clamped to it, as is "no expiry".
      expiresAt: Math.min(input.expiresAt ?? longest, longest),
    };
    return this.uow.write(async (ctx) => {
      await ctx.tokens.insert(record);
      await ctx.audit.append(this.auditRecord(identity, record, 'Created', now));
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
      const now = this.clock.nowMicros();
      const revoked = await this.credentials.revoke(ctx, owner, id, now);
      if (revoked) await ctx.audit.append(this.auditRecord(identity, revoked.before, 'Deleted', now));
    });
  }

  /** The identity a live, unexpired token stands for, recording its use; null for anything else. */
  authenticate(token: string): Promise<Identity | null> {
    return this.credentials.authenticate(token, (found, now) =>
      found.expiresAt <= now ? null : this.identityOf(found),
    );
  }

  private identityOf(token: PersonalTokenRecord): Promise<Identity | null> {
    return this.settings.identities.identityOf(this.uow.read.users, {
      id: token.userId,
      provider: token.provider,
      ...token.identity,
    });
  }

  private auditRecord(identity: Identity, token: PersonalTokenRecord, action: 'Created' | 'Deleted', at: number) {
    const view = auditView(viewOf(token));
    return this.credentials.auditRecord(actorOf(identity), {
      id: token.id,
      serviceId: null,
      action,
      at,
      changes: action === 'Created' ? { after: view } : { before: view },
    });
  }
}

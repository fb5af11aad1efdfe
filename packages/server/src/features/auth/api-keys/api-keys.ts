import {
  API_KEY_SCOPES,
  auditView,
  type Actor,
  type ApiKeyRecord,
  type ApiKeyScope,
  type UnitOfWork,
} from '../../../core/index.js';
import { hashOfSecret, issueSecret } from '../../../platform/bearer-secret.js';
import type { Clock } from '../../../platform/clock.js';
import { AppError } from '../../../platform/errors.js';
import type { IdGenerator } from '../../../platform/ids.js';

const byScopeOrder = (a: ApiKeyScope, b: ApiKeyScope) => API_KEY_SCOPES.indexOf(a) - API_KEY_SCOPES.indexOf(b);

/** Every API key starts with this, so a bearer token is told apart from a Jwt at a glance. */
export const API_KEY_PREFIX = 'rck_';
/** How many leading characters of a key are kept in clear, to tell keys apart in lists. */
/** `last_used_at` is written at most this often per key: a busy client must not cost a write per call. */
const LAST_USED_RESOLUTION_MICROS = 60 * 1_000_000;

/** An API key as the management API shows it: never the key nor its hash. */
export type ApiKeyView = Omit<ApiKeyRecord, 'keyHash'>;

function viewOf({ keyHash: _hash, ...view }: ApiKeyRecord): ApiKeyView {
  return view;
}

/**
 * Machine credentials of one service: created and revoked by its owners in the management API, used
 * as `authorization: Bearer rck_…` on gRPC and REST, within their scopes. Only the SHA-256 of a key
 * is stored (see issueSecret).
 */
export class ApiKeys {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** Creates a key; the returned `key` is the only time it is ever shown. */
  create(
    actor: Actor,
    serviceId: string,
    input: { name: string; scopes: readonly ApiKeyScope[] },
  ): Promise<ApiKeyView & { key: string }> {
    return this.uow.write(async (ctx) => {
      if (!(await ctx.services.get(serviceId))) throw AppError.notFound(`Service ${serviceId} was not found.`);
      const { secret: key, hash, prefix } = issueSecret(API_KEY_PREFIX);
      const now = this.clock.nowMicros();
      const record: ApiKeyRecord = {
        id: this.ids.newId(),
        serviceId,
        name: input.name,
        scopes: [...new Set(input.scopes)].sort(byScopeOrder),
        keyHash: hash,
        prefix,
        createdAt: now,
        createdBy: actor.userId,
        lastUsedAt: null,
        revokedAt: null,
      };
      await ctx.apiKeys.insert(record);
      await ctx.audit.append({
        id: this.ids.newId(),
        serviceId,
        entityType: 'ApiKey',
        entityId: record.id,
        action: 'Created',
        ...actor,
        timestamp: now,
        changes: { after: auditView(viewOf(record)) },
      });
      return { ...viewOf(record), key };
    });
  }

  async list(serviceId: string): Promise<ApiKeyView[]> {
    return this.uow.readConsistent(async (stores) => {
      if (!(await stores.services.get(serviceId))) throw AppError.notFound(`Service ${serviceId} was not found.`);
      return (await stores.apiKeys.list(serviceId)).map(viewOf);
    });
  }

  /** Revokes a key for good; revoking it again changes nothing. */
  revoke(actor: Actor, serviceId: string, keyId: string): Promise<void> {
    return this.uow.write(async (ctx) => {
      if (!(await ctx.services.get(serviceId))) throw AppError.notFound(`Service ${serviceId} was not found.`);
      const before = await ctx.apiKeys.get(keyId);
      if (!before || before.serviceId !== serviceId) {
        throw AppError.notFound(`API key ${keyId} was not found in service ${serviceId}.`);
      }
      const now = this.clock.nowMicros();
      const after = await ctx.apiKeys.revoke(keyId, now);
      if (!after) return;
      await ctx.audit.append({
        id: this.ids.newId(),
        serviceId,
        entityType: 'ApiKey',
        entityId: keyId,
        action: 'Deleted',
        ...actor,
        timestamp: now,
        changes: { before: auditView(viewOf(before)), after: auditView(viewOf(after)) },
      });
    });
  }

  /** The live (not revoked) key with this secret, recording its use; undefined for any other string. */
  async authenticate(key: string): Promise<ApiKeyRecord | undefined> {
    const found = await this.uow.read.apiKeys.findByHash(hashOfSecret(key));
    if (!found || found.revokedAt !== null) return undefined;
    const now = this.clock.nowMicros();
    // A follower's standby takes no writes (docs/regions.md): uses there are not recorded.
    if (!this.uow.readOnly && (found.lastUsedAt === null || found.lastUsedAt < now - LAST_USED_RESOLUTION_MICROS)) {
      await this.uow.read.apiKeys.touch(found.id, now, now - LAST_USED_RESOLUTION_MICROS);
    }
    return found;
  }
}

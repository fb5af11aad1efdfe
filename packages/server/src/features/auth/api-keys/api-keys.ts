import {
  API_KEY_SCOPES,
  auditView,
  requireService,
  type Actor,
  type ApiKeyRecord,
  type ApiKeyScope,
  type UnitOfWork,
} from '../../../core/index.js';
import type { Clock } from '../../../platform/clock.js';
import { AppError } from '../../../platform/errors.js';
import type { IdGenerator } from '../../../platform/ids.js';
import { IssuedCredentials } from '../credentials/issued-credentials.js';

const byScopeOrder = (a: ApiKeyScope, b: ApiKeyScope) => API_KEY_SCOPES.indexOf(a) - API_KEY_SCOPES.indexOf(b);

/** Every API key starts with this, so a bearer token is told apart from a Jwt at a glance. */
export const API_KEY_PREFIX = 'rck_';

/** An API key as the management API shows it: never the key nor its hash. */
export type ApiKeyView = Omit<ApiKeyRecord, 'secretHash'>;

function viewOf({ secretHash: _hash, ...view }: ApiKeyRecord): ApiKeyView {
  return view;
}

/**
 * Machine credentials of one service: created and revoked by its owners in the management API, used
 * as `authorization: Bearer rck_…` on gRPC and REST, within their scopes. Issued, found and
 * revoked like every credential of ours (IssuedCredentials).
 */
export class ApiKeys {
  private readonly credentials: IssuedCredentials<ApiKeyRecord>;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    ids: IdGenerator,
  ) {
    this.credentials = new IssuedCredentials(uow, clock, ids, {
      prefix: API_KEY_PREFIX,
      storeOf: (stores) => stores.apiKeys,
      ownerOf: (key) => key.serviceId,
      notFound: (id, serviceId) => AppError.notFound(`API key ${id} was not found in service ${serviceId}.`),
      auditEntity: 'ApiKey',
    });
  }

  /** Creates a key; the returned `key` is the only time it is ever shown. */
  create(
    actor: Actor,
    serviceId: string,
    input: { name: string; scopes: readonly ApiKeyScope[] },
  ): Promise<ApiKeyView & { key: string }> {
    return this.uow.write(async (ctx) => {
      await requireService(ctx, serviceId);
      const now = this.clock.nowMicros();
      const { secret: key, fields } = this.credentials.issue(input.name, now);
      const record: ApiKeyRecord = {
        ...fields,
        serviceId,
        scopes: [...new Set(input.scopes)].sort(byScopeOrder),
        createdBy: actor.userId,
      };
      await ctx.apiKeys.insert(record);
      await ctx.audit.append(
        this.credentials.auditRecord(actor, {
          id: record.id,
          serviceId,
          action: 'Created',
          at: now,
          changes: { after: auditView(viewOf(record)) },
        }),
      );
      return { ...viewOf(record), key };
    });
  }

  async list(serviceId: string): Promise<ApiKeyView[]> {
    return this.uow.readConsistent(async (stores) => {
      await requireService(stores, serviceId);
      return (await stores.apiKeys.listOf(serviceId)).map(viewOf);
    });
  }

  /** Revokes a key for good; revoking it again changes nothing. */
  revoke(actor: Actor, serviceId: string, keyId: string): Promise<void> {
    return this.uow.write(async (ctx) => {
      await requireService(ctx, serviceId);
      const now = this.clock.nowMicros();
      const revoked = await this.credentials.revoke(ctx, serviceId, keyId, now);
      if (!revoked) return;
      await ctx.audit.append(
        this.credentials.auditRecord(actor, {
          id: keyId,
          serviceId,
          action: 'Deleted',
          at: now,
          changes: { before: auditView(viewOf(revoked.before)), after: auditView(viewOf(revoked.after)) },
        }),
      );
    });
  }

  /** The live (not revoked) key with this secret, recording its use; null for any other string. */
  authenticate(key: string): Promise<ApiKeyRecord | null> {
    return this.credentials.authenticate(key, (found) => found);
  }
}

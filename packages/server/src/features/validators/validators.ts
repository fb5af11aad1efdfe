import {
  requireService,
  type Actor,
  type AuditAction,
  type AuditChanges,
  type AuditRecord,
  type Stores,
  type UnitOfWork,
  type ValidatorFields,
  type ValidatorRecord,
} from '../../core/index.js';
import type { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import type { IdGenerator } from '../../platform/ids.js';
import { auditedOrigin, newSigningSecret, requireAllowedTarget } from '../webhooks/index.js';

/**
 * The validators of a service (its owners and canAll users manage them; the routes check that):
 * create (the secret is shown once), list, replace (enable, disable), delete. Each call is audited.
 */
export class Validators {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly options: { readonly allowPrivateNetworks: boolean },
  ) {}

  async create(
    actor: Actor,
    serviceId: string,
    fields: ValidatorFields,
  ): Promise<{ validator: ValidatorRecord; secret: string }> {
    const checked = await this.check(fields);
    return this.uow.write(async (ctx) => {
      await requireService(ctx, serviceId);
      const now = this.clock.nowMicros();
      const secret = newSigningSecret();
      const validator: ValidatorRecord = {
        id: this.ids.newId(),
        serviceId: serviceId.toLowerCase(),
        ...checked,
        secret,
        createdAt: now,
        updatedAt: now,
      };
      await ctx.validators.insert(validator);
      await ctx.audit.append(this.audited(actor, validator, 'Created', now, { after: auditViewOf(validator) }));
      return { validator, secret };
    });
  }

  async list(serviceId: string): Promise<ValidatorRecord[]> {
    await requireService(this.uow.read, serviceId);
    return this.uow.read.validators.list(serviceId.toLowerCase());
  }

  get(serviceId: string, validatorId: string): Promise<ValidatorRecord> {
    return requireValidator(this.uow.read, serviceId, validatorId);
  }

  /** Replaces the fields sent (the URL, the description, `enabled`); the secret stays. */
  async replace(
    actor: Actor,
    serviceId: string,
    validatorId: string,
    fields: Partial<ValidatorFields>,
  ): Promise<ValidatorRecord> {
    const checked = fields.url === undefined ? fields : { ...fields, url: await this.checkUrl(fields.url) };
    return this.uow.write(async (ctx) => {
      const before = await requireValidator(ctx, serviceId, validatorId);
      const after: ValidatorRecord = {
        ...before,
        url: checked.url ?? before.url,
        description: checked.description !== undefined ? checked.description : before.description,
        enabled: checked.enabled ?? before.enabled,
        updatedAt: this.clock.nowMicros(),
      };
      await ctx.validators.update(before.id, after);
      await ctx.audit.append(
        this.audited(actor, after, 'Updated', after.updatedAt, {
          before: auditViewOf(before),
          after: auditViewOf(after),
        }),
      );
      return after;
    });
  }

  async delete(actor: Actor, serviceId: string, validatorId: string): Promise<void> {
    await this.uow.write(async (ctx) => {
      const before = await requireValidator(ctx, serviceId, validatorId);
      if (!(await ctx.validators.delete(before.serviceId, before.id))) throw validatorNotFound(validatorId);
      const now = this.clock.nowMicros();
      await ctx.audit.append(this.audited(actor, before, 'Deleted', now, { before: auditViewOf(before) }));
    });
  }

  private audited(
    actor: Actor,
    validator: ValidatorRecord,
    action: AuditAction,
    now: number,
    changes: AuditChanges,
  ): Omit<AuditRecord, 'num'> {
    return {
      id: this.ids.newId(),
      serviceId: validator.serviceId,
      entityType: 'Validator',
      entityId: validator.id,
      action,
      ...actor,
      timestamp: now,
      changes,
    };
  }

  private async check(fields: ValidatorFields): Promise<ValidatorFields> {
    return { ...fields, url: await this.checkUrl(fields.url) };
  }

  /** The URL rules and the private-network guard of webhooks (Webhooks:AllowPrivateNetworks). */
  private checkUrl(url: string): Promise<string> {
    return requireAllowedTarget(url.trim(), this.options.allowPrivateNetworks, 'validator');
  }
}

async function requireValidator(stores: Stores, serviceId: string, validatorId: string): Promise<ValidatorRecord> {
  const validator = await stores.validators.get(serviceId.toLowerCase(), validatorId.toLowerCase());
  if (!validator) throw validatorNotFound(validatorId);
  return validator;
}

/**
 * A validator as its audit records show it: never its secret, and of the URL only its origin (a
 * receiver's path or query may carry a token; the audit log has more readers than the validators).
 */
function auditViewOf(v: ValidatorRecord) {
  return { id: v.id, url: auditedOrigin(v.url), description: v.description, enabled: v.enabled };
}

const validatorNotFound = (validatorId: string) =>
  AppError.notFound(`Validator ${validatorId} was not found in this service.`);

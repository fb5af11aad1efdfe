import type { Actor } from './identity.js';
import type { ReportedEntryChange } from './webhooks.js';

/**
 * An outside check of a service's writes (docs/validation.md): before a write of values commits,
 * every enabled validator of the service is asked about it, and each must answer 2xx.
 */
export interface ValidatorRecord {
  readonly id: string;
  readonly serviceId: string;
  readonly url: string;
  readonly description: string | null;
  readonly enabled: boolean;
  /**
   * `whsec_…`: requests are signed with it. Kept sealed by the master key like webhooks' (the store
   * seals and opens it); null when the stored one cannot be opened (its master key is not configured).
   */
  readonly secret: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export type ValidatorFields = Pick<ValidatorRecord, 'url' | 'description' | 'enabled'>;

export interface ValidatorStore {
  insert(validator: ValidatorRecord): Promise<void>;
  get(serviceId: string, id: string): Promise<ValidatorRecord | undefined>;
  /** Oldest first. */
  list(serviceId: string): Promise<ValidatorRecord[]>;
  /** The enabled validators of a service, oldest first: asked before each write of its values. */
  enabled(serviceId: string): Promise<ValidatorRecord[]>;
  update(id: string, change: ValidatorFields & { readonly updatedAt: number }): Promise<void>;
  delete(serviceId: string, id: string): Promise<boolean>;
  /**
   * Seals the signing secrets stored as plaintext (and, with `rewrap`, re-wraps the sealed ones with
   * the current master key), as `WebhookStore.sealSecrets`; answers how many it wrote.
   */
  sealSecrets(rewrap: boolean): Promise<number>;
}

/** A write of values as validators are asked about it, before it commits. */
export interface ValidationRequest {
  readonly serviceId: string;
  readonly versionId: string;
  readonly versionLabel: string;
  readonly actor: Actor;
  /** Both sides of each change, as the write would commit them (secrets are redacted when sent). */
  readonly changes: readonly ReportedEntryChange[];
}

/** What one validator answered (or why it gave no answer). */
export interface ValidatorAnswer {
  readonly validatorId: string;
  readonly url: string;
  /** It answered 2xx in time. */
  readonly passed: boolean;
  /** Null when it gave no answer (a timeout, a refused connection). */
  readonly statusCode: number | null;
  /** The first 500 characters of its answer, or the reason it gave none. */
  readonly message: string;
}

/** Asks validators about a write, all at once; never throws (a failure is an answer that did not pass). */
export interface ValidatorCalls {
  ask(validators: readonly ValidatorRecord[], request: ValidationRequest): Promise<ValidatorAnswer[]>;
}

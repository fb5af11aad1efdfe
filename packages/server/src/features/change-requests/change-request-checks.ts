import { createHash } from 'node:crypto';
import {
  valuesRefused,
  violationsOf,
  type ChangeRequestRecord,
  type ChangeRequestStatus,
  type EntryRecord,
  type RequestedChange,
  type SecretCipher,
  type WriteContext,
} from '../../core/index.js';
import { AppError } from '../../platform/errors.js';
import { checkValue } from '../../protocol.js';

/** What a change request holds at most: one batch value set. */
export const MAX_REQUESTED_CHANGES = 1000;

/** The checks every step of a change request makes on what it is given and what is stored. */

export type Target = { readonly serviceId: string; readonly versionId: string };

/** States from which a request can still be approved, edited, rejected or withdrawn. */
export const PENDING: readonly ChangeRequestStatus[] = ['open', 'approved', 'stale'];

/** The digest approvals are bound to: the same changes in any order give the same hash. */
export function contentHashOf(changes: readonly RequestedChange[], cipher: SecretCipher): string {
  const canonical = [...changes]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((c) => [c.id, c.isSecret ? ['secret', cipher.fingerprint(c.rawValue)] : c.rawValue, c.generation]);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

export function viewForAudit(request: ChangeRequestRecord) {
  return { title: request.title, description: request.description, status: request.status, changes: request.changes };
}

export function requireWellFormed(changes: readonly RequestedChange[]): void {
  if (changes.length === 0)
    throw AppError.invalid('A change request changes at least one value.', { changes: ['is empty'] });
  if (changes.length > MAX_REQUESTED_CHANGES) {
    throw AppError.invalid(`A change request holds at most ${MAX_REQUESTED_CHANGES} changes.`, {
      changes: [`at most ${MAX_REQUESTED_CHANGES}`],
    });
  }
  const ids = new Set<string>();
  const twice = changes.filter((c) => ids.has(c.id) || !ids.add(c.id)).map((c) => c.id);
  if (twice.length > 0) {
    throw AppError.invalid(`The change request names an entry more than once: ${[...new Set(twice)].join(', ')}.`, {
      changes: ['names an entry more than once'],
    });
  }
}

export async function requireVersion(ctx: WriteContext, target: Target): Promise<void> {
  if (!(await ctx.versions.get(target.serviceId, target.versionId))) {
    throw AppError.notFound(`Version ${target.versionId} was not found in service ${target.serviceId}.`);
  }
}

/**
 * Every change names a live entry of the version at its current generation, with a value of its type
 * that meets its schema.
 * Answers the changes marked secret where their entry is (they are then sealed at rest).
 */
export async function requireCurrent(
  ctx: WriteContext,
  versionId: string,
  changes: readonly RequestedChange[],
): Promise<RequestedChange[]> {
  const entries = new Map(
    (
      await ctx.entries.getManyLive(
        versionId,
        changes.map((c) => c.id),
      )
    ).map((e) => [e.id, e]),
  );
  const missing = changes.filter((c) => !entries.has(c.id)).map((c) => c.id);
  if (missing.length > 0) throw AppError.notFound(`Entries not found in this version: ${missing.join(', ')}.`);
  const problems = changes.flatMap((c) => {
    const entry = entries.get(c.id) as EntryRecord;
    const problem = checkValue(entry.valueType, c.rawValue, entry.enumDefinition);
    return problem ? [`${entry.key} ${problem}`] : [];
  });
  if (problems.length > 0) throw AppError.invalid(`Some values do not fit their entry type: ${problems.join('; ')}.`);
  // A request no one could apply is refused when it is made: every value meets its entry's schema.
  const violations = changes.flatMap((c) => violationsOf(entries.get(c.id) as EntryRecord, c.rawValue));
  if (violations.length > 0) throw valuesRefused(violations);
  const stale = changes.filter((c) => (entries.get(c.id) as EntryRecord).generation !== c.generation);
  if (stale.length > 0) {
    throw AppError.conflict(
      `Generation mismatch; the entries were changed meanwhile: ${stale
        .map(
          (c) =>
            `${(entries.get(c.id) as EntryRecord).key} (sent ${c.generation}, current ${(entries.get(c.id) as EntryRecord).generation})`,
        )
        .join('; ')}.`,
    );
  }
  return changes.map(({ id, rawValue, generation }) => ({
    id,
    rawValue,
    generation,
    ...((entries.get(id) as EntryRecord).isSecret ? { isSecret: true } : {}),
  }));
}

export async function requireRequest(ctx: WriteContext, target: Target, id: string): Promise<ChangeRequestRecord> {
  await requireVersion(ctx, target);
  // Locked: approve, edit, apply and close of one request happen one after the other.
  const request = await ctx.changeRequests.getForUpdate(target.versionId, id);
  if (!request) throw AppError.notFound(`Change request ${id} was not found in this version.`);
  return request;
}

export async function requirePending(ctx: WriteContext, target: Target, id: string, what: string) {
  const request = await requireRequest(ctx, target, id);
  if (!PENDING.includes(request.status)) {
    throw AppError.conflict(`The change request is ${request.status}; it can no longer be ${what}.`);
  }
  return request;
}

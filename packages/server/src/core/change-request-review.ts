import { AppError } from '../platform/errors.js';
import { actorOfCaller, userCaller, type Caller } from './caller.js';
import type { ApprovalRecord, ChangeRequestRecord } from './change-requests.js';
import type { Actor, CurrentIdentities, Identity, LocalUserLookup } from './identity.js';
import { serviceAccessRefusal, type RoleLookup } from './service-access.js';

/**
 * The four-eyes rule of change requests, in one place: who counts as having written a request, who
 * may approve it, and which approvals count. Approve, edit and apply all ask here.
 */

/**
 * The person a request names for what a caller wrote: the caller, or for an API key the person who
 * made the key (a shared CI key must not let its maker approve what they opened with it).
 */
export function writerOf(caller: Caller): Actor {
  if (caller.kind === 'apiKey' && caller.key.createdBy) {
    return { userId: caller.key.createdBy, userName: caller.key.createdBy };
  }
  return actorOfCaller(caller);
}

/** The author and everyone who edited the request wrote its content. */
export const wroteContent = (request: ChangeRequestRecord, userId: string): boolean =>
  request.authorId === userId || request.editors.includes(userId);

/**
 * The person approving: someone who wrote none of the request (whether they may change the
 * service's values is the route's access rule, and is asked again at apply).
 */
export function requireMayApprove(caller: Caller, request: ChangeRequestRecord): Identity {
  if (caller.kind !== 'user') throw AppError.forbidden('Only a person may approve a change request.');
  const { id } = caller.identity;
  if (wroteContent(request, id)) {
    throw AppError.forbidden(
      request.authorId === id
        ? 'The author of a change request may not approve it.'
        : 'You edited this change request, so you may not approve it: another editor or owner does.',
    );
  }
  return caller.identity;
}

/**
 * The approvals that count now: given to the request's current changes (the store answers only
 * those), by someone who wrote none of it, and who still may change the service's values (an
 * editor or owner, or canAll) — an approver demoted or deleted since no longer counts.
 */
export async function countingApprovals(
  lookup: RoleLookup & { readonly users: LocalUserLookup },
  identities: CurrentIdentities,
  request: ChangeRequestRecord,
): Promise<ApprovalRecord[]> {
  const counting: ApprovalRecord[] = [];
  for (const approval of request.approvals) {
    if (wroteContent(request, approval.userId)) continue;
    const identity = await identities.identityOf(lookup.users, approval.approver);
    if (identity && (await serviceAccessRefusal(lookup, userCaller(identity), request.serviceId, 'write')) === null) {
      counting.push(approval);
    }
  }
  return counting;
}

import type { PlanOutcome } from '@realtime-config/protocol/rest';
import type { RequestedValue } from './review-dialog';

/**
 * The value sets of a dry run, as a change request takes them; a string saying why not when the plan
 * would also create, delete or re-type keys (those stay an owner's, on an unprotected version).
 */
export function valuesOfPlan(plan: PlanOutcome): RequestedValue[] | string {
  const structural = plan.changes.filter((c) => c.action !== 'set');
  if (structural.length > 0) {
    return (
      `A change request only sets values; this would also ${structural.map((c) => `${c.action} ${c.key}`).join(', ')}. ` +
      'Leave those keys out, or ask an owner to lift the protection for them.'
    );
  }
  return plan.changes.flatMap((c) =>
    c.current?.id !== undefined && c.current.generation !== undefined
      ? [
          {
            id: c.current.id,
            key: c.key,
            before: c.current.value,
            after: c.next?.value ?? null,
            generation: c.current.generation,
          },
        ]
      : [],
  );
}

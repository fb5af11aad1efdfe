/**
 * Config entries: the batch value set, metadata, deletion. The value-type and key rules they apply are
 * the protocol package's (`checkValue`, `checkKey`), shared with the SDK and the console.
 */
export { EntryCommands, MAX_BATCH_ITEMS } from './entry-commands.js';
export { ENTRY_LIMITS } from './entry-limits.js';
export {
  EntryPlans,
  type Plan,
  type PlanItem,
  type PlannedChange,
  type PlanOutcome,
  type Planner,
} from './entry-plans.js';
export { EntryQueries } from './entry-queries.js';
export { planOutcomeOf, PlanOutcomeSchema } from './plan-outcome.js';
export { entryRoutes } from './entry-routes.js';
export { ValueTypeField } from './value-type-field.js';
export { requireFitAndCurrent, type ValueSetItem } from './value-items.js';
export { SecretCommands } from './secret-commands.js';
export { secretRoutes } from './secret-routes.js';

/** Config entries: value types and their rules, the batch value set, metadata, deletion. */
export { EntryCommands, MAX_BATCH_ITEMS, type NewEntry } from './entry-commands.js';
export { ENTRY_LIMITS, exceedsLength } from './entry-limits.js';
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
export {
  entryTextBytes,
  requireWithinVersionCaps,
  sizeChange,
  totalChange,
  type SizeChange,
  type VersionCaps,
} from './version-caps.js';
export {
  checkKey,
  checkValue,
  enumValues,
  isValueType,
  ValueType,
  VALUE_TYPE_NAMES,
  type ValueTypeCode,
} from './value-types.js';

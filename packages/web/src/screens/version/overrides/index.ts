/** Targeting in the console (docs/targeting.md): an entry's overrides by label, and `Resolve for labels…`. */
export { OverridesSection } from './overrides-section';
export { ResolveDialog } from './resolve-dialog';
export { labelChipsProblem, labelsOf, labelsText } from './override-draft';

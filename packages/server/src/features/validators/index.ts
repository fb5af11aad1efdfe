/**
 * Validators: outside checks of a service's writes (docs/validation.md). Each is asked, signed like a
 * webhook, before a write of values commits (core's `checkedWrites` decides when); any answer but
 * 2xx in time refuses the write.
 */
export { HttpValidatorCalls, validationBody } from './validator-calls.js';
export { validatorRoutes } from './validator-routes.js';
export { Validators } from './validators.js';

import { AppError } from '../../platform/errors.js';
import { yamlTextOf, yamlValueOf } from './yaml-text.js';

/** Runs in a worker thread of the YAML pool (yaml-workers.ts): the tasks, one export each. */

export function stringify(document: unknown): string {
  return yamlTextOf(document);
}

/** A file's value, or why it is not YAML (an AppError does not survive the trip to the event loop). */
export function parse(text: string): { value: unknown } | { invalid: string } {
  try {
    return { value: yamlValueOf(text) };
  } catch (error) {
    if (error instanceof AppError) return { invalid: error.message };
    throw error;
  }
}

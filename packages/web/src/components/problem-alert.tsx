import { Alert, List, type AlertProps } from '@mantine/core';
import { asProblem, type Problem } from '../api/problem';
import { fieldWords, problemTitle } from './plain-words';

interface ProblemAlertProps extends Omit<AlertProps, 'title' | 'children'> {
  readonly error: unknown;
  /** Field errors shown on their fields already are left out here. */
  readonly hideFields?: readonly string[];
}

type Violation = NonNullable<Problem['violations']>[number];

/**
 * Shows a problem's title, its `detail`, any field errors no field shows and every rule a refused
 * write broke (`violations`: an entry's schema or a validator): nothing fails silently.
 */
export function ProblemAlert({ error, hideFields = [], ...props }: ProblemAlertProps) {
  const problem = asProblem(error);
  const fieldErrors = Object.entries(problem.errors ?? {}).filter(([field]) => !hideFields.includes(field));
  const violations = problem.violations ?? [];
  return (
    <Alert color="red" variant="light" role="alert" title={problemTitle(problem.status, problem.title)} {...props}>
      {problem.detail}
      {fieldErrors.length > 0 && (
        <List size="sm" mt="xs">
          {fieldErrors.map(([field, messages]) => (
            <List.Item key={field}>{fieldLine(field, messages)}</List.Item>
          ))}
        </List>
      )}
      {violations.length > 0 && (
        <List size="sm" mt="xs" aria-label="Broken rules">
          {violations.map((violation, index) => (
            <List.Item key={index}>{violationLine(violation)}</List.Item>
          ))}
        </List>
      )}
    </Alert>
  );
}

/** `Http:TimeoutSeconds: must be <= 300`, `Limits /max: must be <= 10`; a validator's answer as it said it. */
function violationLine(violation: Violation): string {
  if (violation.keyword === 'validator') return `Validator: ${violation.message}`;
  const where = [violation.key, violation.instancePath].filter(Boolean).join(' ');
  return where ? `${where}: ${violation.message}` : violation.message;
}

/**
 * One field's messages as people read them: a batch item's message names its key already
 * (`[2].rawValue`, a rollout's `changes[2].rawValue` → "Payments:Mode must be one of: …"), `body` is
 * the file, other fields in words.
 */
function fieldLine(field: string, messages: readonly string[]): string {
  const text = messages.join('; ');
  if (/^(?:changes)?\[\d+\]/.test(field)) return text;
  return `${field === 'body' ? 'File' : fieldWords(field)}: ${text}`;
}

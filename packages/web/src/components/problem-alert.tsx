import { Alert, List, type AlertProps } from '@mantine/core';
import { asProblem } from '../api/problem';
import { fieldWords, problemTitle } from './plain-words';

interface ProblemAlertProps extends Omit<AlertProps, 'title' | 'children'> {
  readonly error: unknown;
  /** Field errors shown on their fields already are left out here. */
  readonly hideFields?: readonly string[];
}

/** Shows a problem's title, its `detail` and any field errors no field shows: nothing fails silently. */
export function ProblemAlert({ error, hideFields = [], ...props }: ProblemAlertProps) {
  const problem = asProblem(error);
  const fieldErrors = Object.entries(problem.errors ?? {}).filter(([field]) => !hideFields.includes(field));
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
    </Alert>
  );
}

/**
 * One field's messages as people read them: a batch item's message names its key already
 * (`[2].rawValue` → "Payments:Mode must be one of: …"), `body` is the file, other fields in words.
 */
function fieldLine(field: string, messages: readonly string[]): string {
  const text = messages.join('; ');
  if (/^\[\d+\]/.test(field)) return text;
  return `${field === 'body' ? 'File' : fieldWords(field)}: ${text}`;
}

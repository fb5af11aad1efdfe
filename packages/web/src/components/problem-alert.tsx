import { Alert, List, type AlertProps } from '@mantine/core';
import { asProblem } from '../api/problem';

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
    <Alert color="red" variant="light" role="alert" title={problem.title} {...props}>
      {problem.detail}
      {fieldErrors.length > 0 && (
        <List size="sm" mt="xs">
          {fieldErrors.map(([field, messages]) => (
            <List.Item key={field}>
              {field}: {messages.join('; ')}
            </List.Item>
          ))}
        </List>
      )}
    </Alert>
  );
}

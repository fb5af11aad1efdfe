import { useState } from 'react';
import { fieldErrorsOf } from '../api/problem';

export type Rules<F> = { readonly [K in keyof F]?: (value: F[K], all: F) => string | null };

/**
 * A small form state: values, the rules of rules/ checked as the user types (once a field was changed
 * and left, or a submit was tried), and the server's field errors from the last answer (`serverError`).
 */
export function useFormFields<F extends Record<string, string>>(initial: F, rules: Rules<F>, serverError?: unknown) {
  const serverErrors = fieldErrorsOf(serverError);
  const [values, setValues] = useState<F>(initial);
  const [initialValues, setInitialValues] = useState<F>(initial);
  const [touched, setTouched] = useState<Partial<Record<keyof F, boolean>>>({});
  const [submitted, setSubmitted] = useState(false);

  const errorOf = (field: keyof F): string | null => rules[field]?.(values[field], values) ?? null;
  const fields = Object.keys(values) as (keyof F)[];
  const valid = fields.every((field) => errorOf(field) === null);

  return {
    values,
    valid,
    reset: (next: F = initial) => {
      setValues(next);
      setInitialValues(next);
      setTouched({});
      setSubmitted(false);
    },
    /** Props for a Mantine input: value, onChange, onBlur and the rule's message. */
    input: (field: keyof F) => ({
      value: values[field],
      onChange: (event: { currentTarget: { value: string } }) => {
        const value = event.currentTarget.value;
        setValues((current) => ({ ...current, [field]: value }));
      },
      // A field left as it was is not judged on leaving it, only on submit: its message would push
      // the dialog's buttons down under the pointer as it moves to Cancel, and Cancel would miss.
      onBlur: () => {
        if (values[field] !== initialValues[field]) setTouched((current) => ({ ...current, [field]: true }));
      },
      error: ((touched[field] || submitted) && errorOf(field)) || serverErrors[field as string] || undefined,
    }),
    /** Marks every field touched; true when the rules pass and the form may be sent. */
    trySubmit: (): boolean => {
      setSubmitted(true);
      return valid;
    },
  };
}

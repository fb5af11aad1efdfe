import { Input, Stack } from '@mantine/core';
import { ValueType } from '@realtime-config/protocol';
import { useEffect, useId, useState } from 'react';
import { checkSchemaText } from '../../rules/schema-check';
import { ValueEditor } from './editors/value-editor';

const SCHEMA_EDITOR = { key: 'Schema', valueType: ValueType.JSON, enumDefinition: null };

const textOf = (schema: object | null) => (schema === null ? '' : JSON.stringify(schema, null, 2));

export interface SchemaText {
  readonly text: string;
  setText(text: string): void;
  /** Not JSON, or not a valid JSON Schema (draft 2020-12); null when the text is fine. */
  readonly problem: string | null;
}

/** An entry's schema as JSON text, checked as the user types by the checker the server uses. */
export function useSchemaText(initial: object | null): SchemaText {
  const [text, setText] = useState(() => textOf(initial));
  const [checked, setChecked] = useState<{ text: string; problem: string | null }>({
    text: textOf(initial),
    problem: null,
  });
  useEffect(() => {
    if (checked.text === text) return;
    let current = true;
    void checkSchemaText(text).then(
      (result) => current && setChecked({ text, problem: result.problem }),
      (error: unknown) => current && setChecked({ text, problem: String(error) }),
    );
    return () => {
      current = false;
    };
  }, [text, checked.text]);
  // While the text is being checked (a moment) the last answer is not shown: it was about another text.
  return { text, setText, problem: checked.text === text ? checked.problem : null };
}

/**
 * The schema field of an entry's details: a JSON editor labelled Schema, marked when its text is no
 * JSON or no valid schema.
 */
export function SchemaField(props: { schema: SchemaText; disabled: boolean; describedBy?: string | undefined }) {
  const { schema } = props;
  const helpId = useId();
  return (
    <Stack gap={4}>
      <Input.Label component="div">Schema</Input.Label>
      <Input.Description id={helpId}>
        A JSON Schema (draft 2020-12) every value must meet, e.g. {'{"minimum":1,"maximum":300}'}. Empty: no rules.
      </Input.Description>
      <ValueEditor
        entry={SCHEMA_EDITOR}
        value={schema.text === '' ? null : schema.text}
        onChange={(raw) => schema.setText(raw ?? '')}
        error={schema.problem}
        disabled={props.disabled}
        describedBy={[helpId, props.describedBy].filter(Boolean).join(' ')}
      />
    </Stack>
  );
}

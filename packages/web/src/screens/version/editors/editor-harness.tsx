import { checkValue } from '@realtime-config/protocol';
import { useState } from 'react';
import type { EditorProps } from './editor-props';
import { ValueEditor } from './value-editor';

/** A value editor wired as an entry row wires it: the typed value, checked by the server's rule. */
export function EditorHarness(props: {
  entry: EditorProps['entry'];
  initial: string | null;
  onRaw?: (raw: string | null) => void;
}) {
  const [value, setValue] = useState(props.initial);
  const error = checkValue(props.entry.valueType, value, props.entry.enumDefinition);
  return (
    <ValueEditor
      entry={props.entry}
      value={value}
      error={error}
      onChange={(raw) => {
        setValue(raw);
        props.onRaw?.(raw);
      }}
    />
  );
}

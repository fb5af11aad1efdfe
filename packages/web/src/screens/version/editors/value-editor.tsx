import { Skeleton } from '@mantine/core';
import { lazy, Suspense } from 'react';
import { ValueType } from '../../../rules/value-rules';
import type { EditorProps } from './editor-props';
import { BooleanEditor, DateTimeEditor, EnumEditor, NumberEditor, TextEditor, TimeSpanEditor } from './simple-editors';

// CodeMirror is the largest dependency of the console: it loads only when an Array or Json value is shown.
const CodeEditor = lazy(() => import('./code-editor').then((m) => ({ default: m.CodeEditor })));

/** The editor that fits the entry's value type (CONTRACT.md section 8), labelled with the entry's key. */
export function ValueEditor(props: EditorProps) {
  switch (props.entry.valueType) {
    case ValueType.Boolean:
      return <BooleanEditor {...props} />;
    case ValueType.Enum:
      return <EnumEditor {...props} />;
    case ValueType.Number:
      return <NumberEditor {...props} />;
    case ValueType.DateTime:
      return <DateTimeEditor {...props} />;
    case ValueType.TimeSpan:
      return <TimeSpanEditor {...props} />;
    case ValueType.Array:
    case ValueType.Json:
      return (
        <Suspense fallback={<Skeleton height={36} />}>
          <CodeEditor {...props} />
        </Suspense>
      );
    default:
      return <TextEditor {...props} />;
  }
}

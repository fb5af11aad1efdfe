import { Skeleton } from '@mantine/core';
import { ValueType } from '@realtime-config/protocol';
import { lazy, Suspense } from 'react';
import type { EditorProps } from './editor-props';
import { BooleanEditor, DateTimeEditor, EnumEditor, NumberEditor, TextEditor, TimeSpanEditor } from './simple-editors';

// CodeMirror is the largest dependency of the console: it loads only when an Array or Json value is shown.
const CodeEditor = lazy(() => import('./code-editor').then((m) => ({ default: m.CodeEditor })));

/** The editor that fits the entry's value type (docs/console.md, A version), labelled with the entry's key. */
export function ValueEditor(props: EditorProps) {
  switch (props.entry.valueType) {
    case ValueType.BOOLEAN:
      return <BooleanEditor {...props} />;
    case ValueType.ENUM:
      return <EnumEditor {...props} />;
    case ValueType.NUMBER:
      return <NumberEditor {...props} />;
    case ValueType.DATE_TIME:
      return <DateTimeEditor {...props} />;
    case ValueType.TIME_SPAN:
      return <TimeSpanEditor {...props} />;
    case ValueType.ARRAY:
    case ValueType.JSON:
      return (
        <Suspense fallback={<Skeleton height={36} />}>
          <CodeEditor {...props} />
        </Suspense>
      );
    default:
      return <TextEditor {...props} />;
  }
}

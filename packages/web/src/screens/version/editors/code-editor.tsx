import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import { HighlightStyle, bracketMatching, syntaxHighlighting } from '@codemirror/language';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import { EditorView, keymap, placeholder } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { Input } from '@mantine/core';
import { useEffect, useId, useRef } from 'react';
import type { EditorProps } from './editor-props';
import { formatJson, rawOrNull } from './value-format';

/**
 * JSON's colours come from CSS variables (app.css) set for the light and the dark scheme, so the text
 * keeps its contrast in both (CodeMirror's default colours are for a light background only).
 */
const jsonHighlight = HighlightStyle.define([
  { tag: tags.propertyName, color: 'var(--rc-code-property)' },
  { tag: tags.string, color: 'var(--rc-code-string)' },
  { tag: [tags.number, tags.bool, tags.null], color: 'var(--rc-code-literal)' },
  { tag: tags.invalid, color: 'var(--rc-code-invalid)' },
]);

/**
 * Array and Json values: CodeMirror 6 with JSON highlighting, loaded on demand (its own chunk). Tab
 * indents; Escape then Tab leaves the editor, as CodeMirror's accessibility guide recommends.
 */
export function CodeEditor({ entry, value, onChange, error, disabled, describedBy }: EditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;
  const errorId = useId();
  const accessibility = useRef(new Compartment());

  const attributes = (): Extension => {
    const described = [describedBy, error ? errorId : undefined].filter(Boolean).join(' ');
    return [
      EditorView.editable.of(!disabled),
      EditorView.contentAttributes.of({
        'aria-label': entry.key,
        'aria-multiline': 'true',
        ...(error ? { 'aria-invalid': 'true' } : {}),
        ...(described ? { 'aria-describedby': described } : {}),
      }),
    ];
  };

  useEffect(() => {
    if (!host.current) return;
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: formatJson(value),
        extensions: [
          history(),
          bracketMatching(),
          syntaxHighlighting(jsonHighlight),
          json(),
          keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
          placeholder('null'),
          accessibility.current.of(attributes()),
          EditorView.lineWrapping,
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current(rawOrNull(update.state.doc.toString()));
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
    // The editor is made once; value changes arrive through the effect below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // A value set from outside (a change elsewhere, a discarded edit) replaces the text unless it means the same.
  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const text = editor.state.doc.toString();
    if (rawOrNull(text) === value || formatJson(text) === formatJson(value)) return;
    editor.dispatch({ changes: { from: 0, to: text.length, insert: formatJson(value) } });
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({ effects: accessibility.current.reconfigure(attributes()) });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [entry.key, disabled, error, describedBy, errorId]);

  return (
    <div className="rc-code-editor" data-error={error ? true : undefined}>
      <div ref={host} />
      {error && <Input.Error id={errorId}>{error}</Input.Error>}
    </div>
  );
}

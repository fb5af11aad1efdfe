import { EditorView } from '@codemirror/view';
import { act, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderInTheme } from '../../test-support/render';
import { SchemaField, useSchemaText } from './schema-field';

function Harness({ initial }: { initial: object | null }) {
  const schema = useSchemaText(initial);
  return <SchemaField schema={schema} disabled={false} />;
}

/** Replaces the editor's text as typing would (jsdom cannot type into contenteditable). */
function typeInto(content: HTMLElement, text: string) {
  const view = EditorView.findFromDOM(content);
  if (!view) throw new Error('no CodeMirror view');
  act(() => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }));
}

describe("an entry's schema field", () => {
  it('shows the stored schema as JSON and marks a text that is no JSON or no valid schema, as typed', async () => {
    renderInTheme(<Harness initial={{ minimum: 1, maximum: 300 }} />);
    const editor = await screen.findByRole('textbox', { name: 'Schema' });
    expect(editor.textContent).toBe('{"minimum":1,"maximum":300}');
    expect(editor.getAttribute('aria-invalid')).toBeNull();

    typeInto(editor, '{"minimum": ');
    expect(await screen.findByText(/^Not JSON/)).toBeTruthy();
    typeInto(editor, '{"minimun": 1}');
    expect(await screen.findByText(/^The schema is not a valid JSON Schema.*unknown keyword: "minimun"/)).toBeTruthy();
    expect(editor.getAttribute('aria-invalid')).toBe('true');
    typeInto(editor, '{"pattern": "^https://"}');
    await waitFor(() => expect(screen.queryByText(/^The schema/)).toBeNull());
    expect(editor.getAttribute('aria-invalid')).toBeNull();
  });
});

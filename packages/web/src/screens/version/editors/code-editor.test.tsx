import { EditorView } from '@codemirror/view';
import { ValueType } from '@realtime-config/protocol';
import { act, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderInTheme } from '../../../test-support/render';
import { EditorHarness } from './editor-harness';

/** Replaces the editor's text as typing would (jsdom cannot type into contenteditable). */
function typeInto(content: HTMLElement, text: string) {
  const view = EditorView.findFromDOM(content);
  if (!view) throw new Error('no CodeMirror view');
  act(() => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }));
}

async function codeEditor(name: string): Promise<HTMLElement> {
  return screen.findByRole('textbox', { name });
}

describe('Array and Json editors (CodeMirror)', () => {
  it('show the stored JSON, labelled by the key, on one line when short and indented when long', async () => {
    const long = JSON.stringify({ endpoints: ['https://a.example.com', 'https://b.example.com'], max: 10 });
    renderInTheme(
      <EditorHarness
        entry={{ key: 'Payments:Limits', valueType: ValueType.JSON, enumDefinition: null }}
        initial={long}
      />,
    );
    const content = await codeEditor('Payments:Limits');
    expect(content.getAttribute('aria-multiline')).toBe('true');
    expect(content.textContent).toContain('"endpoints": [');
    renderInTheme(
      <EditorHarness
        entry={{ key: 'Payments:Retries', valueType: ValueType.ARRAY, enumDefinition: null }}
        initial="[1, 2]"
      />,
    );
    expect((await codeEditor('Payments:Retries')).textContent).toBe('[1,2]');
  });

  it('checks an Array as you type: an object is refused, an array accepted, empty means null', async () => {
    const onRaw = vi.fn();
    renderInTheme(
      <EditorHarness
        entry={{ key: 'Payments:Retries', valueType: ValueType.ARRAY, enumDefinition: null }}
        initial="[1]"
        onRaw={onRaw}
      />,
    );
    const content = await codeEditor('Payments:Retries');
    typeInto(content, '{"a": 1}');
    expect(onRaw).toHaveBeenLastCalledWith('{"a": 1}');
    expect(content.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('must be a JSON array')).toBeTruthy();
    typeInto(content, '[1, 2, 3]');
    expect(content.getAttribute('aria-invalid')).toBeNull();
    expect(screen.queryByText('must be a JSON array')).toBeNull();
    typeInto(content, '  ');
    expect(onRaw).toHaveBeenLastCalledWith(null);
  });

  it('checks a Json value as you type: broken JSON and arrays are refused', async () => {
    renderInTheme(
      <EditorHarness
        entry={{ key: 'Payments:Limits', valueType: ValueType.JSON, enumDefinition: null }}
        initial="{}"
      />,
    );
    const content = await codeEditor('Payments:Limits');
    typeInto(content, '{"max": ');
    expect(screen.getByText('must be a JSON object')).toBeTruthy();
    typeInto(content, '[]');
    expect(screen.getByText('must be a JSON object')).toBeTruthy();
    typeInto(content, '{"max": 2}');
    expect(screen.queryByText('must be a JSON object')).toBeNull();
  });
});

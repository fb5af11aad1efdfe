import { ValueType } from '@realtime-config/protocol';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderInTheme } from '../../../test-support/render';
import { EditorHarness } from './editor-harness';
import { ValueEditor } from './value-editor';

const entry = (key: string, valueType: number, enumDefinition: string | null = null) => ({
  key,
  valueType,
  enumDefinition,
});

function descriptionOf(element: HTMLElement): string {
  return (element.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ');
}

describe('Boolean editor', () => {
  it('is a switch named by the key that reads true in any case and writes true/false', async () => {
    const onRaw = vi.fn();
    renderInTheme(<EditorHarness entry={entry('Payments:Enabled', ValueType.BOOLEAN)} initial="True" onRaw={onRaw} />);
    const toggle = screen.getByRole('switch', { name: 'Payments:Enabled' });
    expect((toggle as HTMLInputElement).checked).toBe(true);
    await userEvent.click(toggle);
    expect(onRaw).toHaveBeenLastCalledWith('false');
    expect((toggle as HTMLInputElement).checked).toBe(false);
    await userEvent.click(toggle);
    expect(onRaw).toHaveBeenLastCalledWith('true');
  });

  it('shows null as off with the word null', () => {
    renderInTheme(<EditorHarness entry={entry('Flags:Beta', ValueType.BOOLEAN)} initial={null} />);
    expect((screen.getByRole('switch', { name: 'Flags:Beta' }) as HTMLInputElement).checked).toBe(false);
    expect(screen.getByText('null')).toBeTruthy();
  });
});

describe('Enum editor', () => {
  it('offers null and the allowed values split on | or , and writes the chosen one', async () => {
    const onRaw = vi.fn();
    renderInTheme(
      <EditorHarness
        entry={entry('Payments:Mode', ValueType.ENUM, 'Live| Test ,Sandbox')}
        initial="Test"
        onRaw={onRaw}
      />,
    );
    const select = screen.getByRole('combobox', { name: 'Payments:Mode' }) as HTMLSelectElement;
    expect([...select.options].map((o) => o.textContent)).toEqual(['null (not set)', 'Live', 'Test', 'Sandbox']);
    expect(select.value).toBe('Test');
    await userEvent.selectOptions(select, 'Sandbox');
    expect(onRaw).toHaveBeenLastCalledWith('Sandbox');
    await userEvent.selectOptions(select, 'null (not set)');
    expect(onRaw).toHaveBeenLastCalledWith(null);
  });

  it('keeps a stored value that is no longer allowed visible, marked and invalid', () => {
    renderInTheme(<EditorHarness entry={entry('Payments:Mode', ValueType.ENUM, 'Live|Test')} initial="Old" />);
    const select = screen.getByRole('combobox', { name: 'Payments:Mode' }) as HTMLSelectElement;
    expect(select.value).toBe('Old');
    expect(screen.getByRole('option', { name: 'Old (not allowed)' })).toBeTruthy();
    expect(select.getAttribute('aria-invalid')).toBe('true');
    expect(descriptionOf(select)).toContain('must be one of: Live, Test');
  });
});

describe('Number editor', () => {
  it('is a number field that writes decimal text, and null when cleared', async () => {
    const onRaw = vi.fn();
    renderInTheme(
      <EditorHarness entry={entry('Payments:TimeoutSeconds', ValueType.NUMBER)} initial="30" onRaw={onRaw} />,
    );
    const field = screen.getByRole('spinbutton', { name: 'Payments:TimeoutSeconds' }) as HTMLInputElement;
    expect(field.value).toBe('30');
    await userEvent.clear(field);
    expect(onRaw).toHaveBeenLastCalledWith(null);
    expect(field.placeholder).toBe('null');
    await userEvent.type(field, '-2.5e3');
    expect(onRaw).toHaveBeenLastCalledWith('-2.5e3');
    expect(field.getAttribute('aria-invalid')).not.toBe('true');
  });
});

describe('every editor', () => {
  it('is described by the notes of its row (read-only reason, changed elsewhere) as well as its own rule', async () => {
    renderInTheme(
      <>
        <p id="why">Read-only: not a member.</p>
        <ValueEditor
          entry={entry('Payments:TimeoutSeconds', ValueType.NUMBER)}
          value="x"
          onChange={() => undefined}
          error="must be a decimal number"
          describedBy="why"
          disabled
        />
      </>,
    );
    const field = screen.getByRole('spinbutton', { name: 'Payments:TimeoutSeconds' }) as HTMLInputElement;
    // Mantine re-renders its own part after mount; the notes are merged back after it.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(field.disabled).toBe(true);
    expect(descriptionOf(field)).toContain('must be a decimal number');
    expect(descriptionOf(field)).toContain('Read-only: not a member.');
  });
});

describe('DateTime editor', () => {
  it('checks ISO 8601 as you type and shows a valid value in local time', async () => {
    const onRaw = vi.fn();
    renderInTheme(
      <EditorHarness entry={entry('Payments:StartsAt', ValueType.DATE_TIME)} initial={null} onRaw={onRaw} />,
    );
    const field = screen.getByRole('textbox', { name: 'Payments:StartsAt' });
    await userEvent.type(field, '2026-02-30');
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(descriptionOf(field)).toContain('must be an ISO 8601 date and time');
    await userEvent.clear(field);
    expect(onRaw).toHaveBeenLastCalledWith(null);
    await userEvent.type(field, '2026-05-01T09:30:00Z');
    expect(onRaw).toHaveBeenLastCalledWith('2026-05-01T09:30:00Z');
    expect(field.getAttribute('aria-invalid')).not.toBe('true');
    expect(descriptionOf(field)).toContain('2026');
    expect(descriptionOf(field)).toContain('your time');
  });
});

describe('TimeSpan editor', () => {
  it('reads [-][d.]HH:mm:ss[.fffffff] back in words and refuses 24 hours', async () => {
    renderInTheme(<EditorHarness entry={entry('Payments:Window', ValueType.TIME_SPAN)} initial="1.02:05:00" />);
    const field = screen.getByRole('textbox', { name: 'Payments:Window' });
    expect(descriptionOf(field)).toContain('1 d 2 h 5 min');
    await userEvent.clear(field);
    await userEvent.type(field, '24:00:00');
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(descriptionOf(field)).toContain('must be a time span');
    await userEvent.clear(field);
    await userEvent.type(field, '-00:00:01.5');
    expect(field.getAttribute('aria-invalid')).not.toBe('true');
    expect(descriptionOf(field)).toContain('minus 1.5 s');
  });
});

describe('String editor', () => {
  it('keeps the empty string as a value (not null) and shows null as a placeholder', async () => {
    const onRaw = vi.fn();
    renderInTheme(<EditorHarness entry={entry('Payments:Provider', ValueType.STRING)} initial={null} onRaw={onRaw} />);
    const field = screen.getByRole('textbox', { name: 'Payments:Provider' }) as HTMLTextAreaElement;
    expect(field.placeholder).toBe('null');
    await userEvent.type(field, 'a');
    await userEvent.clear(field);
    expect(onRaw).toHaveBeenLastCalledWith('');
    expect(field.placeholder).toBe('');
  });
});

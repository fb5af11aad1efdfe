import { ValueType } from '@realtime-config/protocol';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useEffect } from 'react';
import { describe, expect, it, vi } from 'vitest';
import type { Entry } from '@realtime-config/protocol/rest';
import { renderInTheme } from '../../test-support/render';
import { usePendingChanges } from './pending-changes';
import { PendingTray } from './pending-tray';

const entry: Entry = {
  id: 'e1',
  key: 'Payments:TimeoutSeconds',
  name: 'Payments:TimeoutSeconds',
  rawValue: '30',
  valueType: ValueType.NUMBER,
  enumDefinition: null,
  description: null,
  groupName: null,
  groupDescription: null,
  schema: null,
  generation: 3,
  createdAt: '2026-01-01T00:00:00.000000Z',
  updatedAt: '2026-01-01T00:00:00.000000Z',
  isSecret: false,
  hasValue: true,
  overrides: [],
};

const LIMITS = { minimum: 1, maximum: 300 };

/** The tray with one edit in it, as the version page holds it. */
function Harness({
  raw,
  review,
  onSave,
  schema = null,
  onRollOut,
}: {
  raw: string;
  review: boolean;
  onSave: () => void;
  schema?: Entry['schema'];
  onRollOut?: () => void;
}) {
  const pending = usePendingChanges();
  const { edit } = pending;
  useEffect(() => edit({ ...entry, schema }, raw), [edit, raw, schema]);
  return (
    <PendingTray
      pending={pending}
      entriesById={new Map([[entry.id, entry]])}
      onSave={onSave}
      saving={false}
      saveError={null}
      review={review}
      onRollOut={onRollOut}
    />
  );
}

describe('the pending tray of a protected version', () => {
  it('offers Request review… instead of Save and hands the changes on', async () => {
    const onSave = vi.fn();
    renderInTheme(<Harness raw="45" review onSave={onSave} />);
    const request = await screen.findByRole('button', { name: 'Request review…' });
    expect(screen.queryByRole('button', { name: /^Save/ })).toBeNull();
    await userEvent.click(request);
    expect(onSave).toHaveBeenCalledOnce();
  });

  it('keeps Save on an unprotected version, and neither with a value that does not fit', async () => {
    const { unmount } = renderInTheme(<Harness raw="45" review={false} onSave={vi.fn()} />);
    expect(await screen.findByRole('button', { name: 'Save 1 change' })).toBeTruthy();
    unmount();
    renderInTheme(<Harness raw="forty" review onSave={vi.fn()} />);
    expect(((await screen.findByRole('button', { name: 'Request review…' })) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText(/before requesting review/)).toBeTruthy();
  });
});

describe('the pending tray with a value that breaks its schema', () => {
  it('names the rule and keeps Save disabled, with the reason', async () => {
    renderInTheme(<Harness raw="3000" review={false} onSave={vi.fn()} schema={LIMITS} />);
    expect(await screen.findByText('must be <= 300')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Save 1 change' }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText('Fix the value marked in red before saving.')).toBeTruthy();
  });
});

describe('Roll out… in the pending tray', () => {
  it('sits beside Save on an unprotected version and hands the changes on; a protected one keeps review', async () => {
    const onRollOut = vi.fn();
    const { unmount } = renderInTheme(<Harness raw="45" review={false} onSave={vi.fn()} onRollOut={onRollOut} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Roll out…' }));
    expect(onRollOut).toHaveBeenCalledOnce();
    unmount();

    renderInTheme(<Harness raw="45" review onSave={vi.fn()} onRollOut={onRollOut} />);
    expect(await screen.findByRole('button', { name: 'Request review…' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Roll out…' })).toBeNull();
  });

  it('is disabled, like Save, while a value does not fit', async () => {
    renderInTheme(<Harness raw="forty" review={false} onSave={vi.fn()} onRollOut={vi.fn()} />);
    expect(((await screen.findByRole('button', { name: 'Roll out…' })) as HTMLButtonElement).disabled).toBe(true);
  });
});

import { ValueType } from '@realtime-config/protocol';
import { act, renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Entry } from '@realtime-config/protocol/rest';
import { isStale, usePendingChanges } from './pending-changes';

function entry(overrides: Partial<Entry>): Entry {
  return {
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
    ...overrides,
  };
}

describe('pending changes', () => {
  it('remember the stored value and generation an edit was based on, across further edits', () => {
    const { result } = renderHook(() => usePendingChanges());
    act(() => result.current.edit(entry({}), '45'));
    act(() => result.current.edit(entry({ rawValue: '31', generation: 4 }), '50'));
    expect(result.current.list).toEqual([
      {
        entryId: 'e1',
        key: 'Payments:TimeoutSeconds',
        baseRaw: '30',
        baseGeneration: 3,
        raw: '50',
        error: null,
        checking: false,
      },
    ]);
  });

  it('drop an edit back to the stored value, and check the type rule of the new value', () => {
    const { result } = renderHook(() => usePendingChanges());
    act(() => result.current.edit(entry({}), 'soon'));
    expect(result.current.get('e1')?.error).toBe('must be a decimal number');
    act(() => result.current.edit(entry({}), '30'));
    expect(result.current.list).toEqual([]);
  });

  it("mark a value that breaks the entry's schema with the rule it breaks, checked by the protocol's checker", async () => {
    const { result } = renderHook(() => usePendingChanges());
    const limited = entry({ schema: { minimum: 1, maximum: 300 } });
    act(() => result.current.edit(limited, '3000'));
    expect(result.current.get('e1')).toMatchObject({ error: null, checking: true });
    await waitFor(() => expect(result.current.get('e1')).toMatchObject({ error: 'must be <= 300', checking: false }));
    act(() => result.current.edit(limited, '300'));
    await waitFor(() => expect(result.current.get('e1')).toMatchObject({ error: null, checking: false }));
    // The type rule comes first: a value that is no number is not checked against the schema.
    act(() => result.current.edit(limited, 'lots'));
    expect(result.current.get('e1')).toMatchObject({ error: 'must be a decimal number', checking: false });
  });

  it('are stale once the entry moved on; Keep mine rebases them, an equal stored value ends them', () => {
    const { result } = renderHook(() => usePendingChanges());
    act(() => result.current.edit(entry({}), '45'));
    const stored = entry({ rawValue: '60', generation: 4 });
    expect(isStale(result.current.get('e1')!, stored)).toBe(true);
    act(() => result.current.rebase(stored));
    expect(result.current.get('e1')).toMatchObject({ raw: '45', baseRaw: '60', baseGeneration: 4 });
    expect(isStale(result.current.get('e1')!, stored)).toBe(false);
    act(() => result.current.rebase(entry({ rawValue: '45', generation: 5 })));
    expect(result.current.list).toEqual([]);
  });
});

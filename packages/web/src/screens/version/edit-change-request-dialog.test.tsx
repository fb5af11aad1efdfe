import { ValueType } from '@realtime-config/protocol';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChangeRequest, Entry } from '@realtime-config/protocol/rest';
import { api } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { renderInTheme } from '../../test-support/render';
import { EditChangeRequestDialog } from './edit-change-request-dialog';

const entry = (id: string, key: string, rawValue: string | null, isSecret = false): Entry => ({
  id,
  key,
  name: key,
  rawValue,
  valueType: isSecret ? ValueType.STRING : ValueType.NUMBER,
  enumDefinition: null,
  description: null,
  groupName: null,
  groupDescription: null,
  schema: null,
  generation: 3,
  createdAt: '2026-01-01T00:00:00.000000Z',
  updatedAt: '2026-01-01T00:00:00.000000Z',
  isSecret,
  hasValue: rawValue !== null || isSecret,
  overrides: [],
});

/** An approved request setting a number and a secret, as the list answers it (the secret's value left out). */
const request: ChangeRequest = {
  id: 'c1',
  serviceId: 's1',
  versionId: 'v1',
  title: 'Night settings',
  description: null,
  status: 'approved',
  author: 'erin',
  authorName: 'erin',
  createdAt: '2026-11-26T09:30:00.000000Z',
  updatedAt: '2026-11-26T09:30:00.000000Z',
  closedBy: null,
  rolloutId: null,
  editors: [],
  requiredApprovals: 1,
  changes: [
    { id: 'e1', key: 'Payments:Retries', rawValue: '5', generation: 3, currentValue: '3', currentGeneration: 3 },
    {
      id: 'e2',
      key: 'Payments:ApiKey',
      rawValue: null,
      isSecret: true,
      redacted: true,
      fingerprint: 'f00d',
      generation: 3,
      currentValue: null,
      currentGeneration: 3,
    },
  ],
  approvals: [{ userId: 'olga', userName: 'olga', approvedAt: '2026-11-26T09:41:12.000000Z' }],
};

function renderDialog(retriesSchema: Entry['schema'] = null) {
  const client = new QueryClient({ defaultOptions: { mutations: { retry: false } } });
  client.setQueryData(queryKeys.versions.entries('s1', 'v1'), [
    { ...entry('e1', 'Payments:Retries', '3'), schema: retriesSchema },
    entry('e2', 'Payments:ApiKey', null, true),
  ]);
  const onClose = vi.fn();
  renderInTheme(
    <QueryClientProvider client={client}>
      <EditChangeRequestDialog opened onClose={onClose} serviceId="s1" versionId="v1" request={request} />
    </QueryClientProvider>,
  );
  return { onClose, dialog: screen.getByRole('dialog', { name: 'Edit Night settings' }) };
}

afterEach(() => vi.restoreAllMocks());

describe('editing a change request', () => {
  it('asks for a secret again (its value never comes back) and sends nothing until it is typed', async () => {
    const put = vi.spyOn(api, 'PUT');
    const { dialog } = renderDialog();
    expect(within(dialog).getByText(/New values drop the approvals it has/)).toBeTruthy();
    expect((within(dialog).getByLabelText('Payments:Retries') as HTMLInputElement).value).toBe('5');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save request' }));
    expect(
      await within(dialog).findByText('Type the requested value again: a secret’s value is not shown.'),
    ).toBeTruthy();
    expect(put).not.toHaveBeenCalled();
  });

  it('sends the title, description and values with the generations they were based on', async () => {
    const put = vi.spyOn(api, 'PUT').mockResolvedValue({
      data: request,
      response: new Response(null, { status: 200 }),
    } as never);
    const { dialog, onClose } = renderDialog();
    const title = within(dialog).getByLabelText(/^Title/);
    await userEvent.clear(title);
    await userEvent.type(title, 'Night settings, safer');
    await userEvent.type(within(dialog).getByLabelText(/^Description/), 'Fewer retries.');
    const retries = within(dialog).getByLabelText('Payments:Retries');
    await userEvent.clear(retries);
    await userEvent.type(retries, '4');
    await userEvent.type(within(dialog).getByLabelText('Payments:ApiKey'), 's3cret');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save request' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(put).toHaveBeenCalledOnce();
    expect(put.mock.calls[0]?.[1]).toMatchObject({
      params: { path: { serviceId: 's1', versionId: 'v1', changeRequestId: 'c1' } },
      body: {
        title: 'Night settings, safer',
        description: 'Fewer retries.',
        changes: [
          { id: 'e1', rawValue: '4', generation: 3 },
          { id: 'e2', rawValue: 's3cret', generation: 3 },
        ],
      },
    });
  });

  it("marks a requested value that breaks its entry's schema with the rule, and sends nothing", async () => {
    const put = vi.spyOn(api, 'PUT');
    const { dialog } = renderDialog({ minimum: 0, maximum: 3 });
    expect(await within(dialog).findByText('must be <= 3')).toBeTruthy();
    await userEvent.type(within(dialog).getByLabelText('Payments:ApiKey'), 's3cret');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save request' }));
    expect(put).not.toHaveBeenCalled();
    const retries = within(dialog).getByLabelText('Payments:Retries');
    await userEvent.clear(retries);
    await userEvent.type(retries, '2');
    await waitFor(() => expect(within(dialog).queryByText('must be <= 3')).toBeNull());
  });
});

import { Button, Group, Loader, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { AnchorLink } from '../../components/anchor-link';
import { useNavigate } from '@tanstack/react-router';
import { useEffect, useState } from 'react';
import { EmptyState } from '../../components/empty-state';
import { ProblemAlert } from '../../components/problem-alert';
import { useReadyMark } from '../../components/ready-mark';
import { abilitiesOf, useMe } from '../sign-in/use-session';
import { servicesRoute } from './route';
import { ServiceFormDialog } from './service-form-dialog';
import { useCreateService, useServiceSearch } from './use-services';

/** Services: search by name (kept in the URL), cursor paging, and (admins) New service. */
export function ServicesPage() {
  const { q = '' } = servicesRoute.useSearch();
  const navigate = useNavigate({ from: '/services' });
  const me = useMe();
  const canAll = me.data ? abilitiesOf(me.data).canAll : false;
  const [text, setText] = useState(q);
  const [name] = useDebouncedValue(text.trim(), 250);
  // Tokens of the pages before this one; the last is the current page's token.
  const [tokens, setTokens] = useState<(string | null)[]>([null]);
  const pageToken = tokens[tokens.length - 1] ?? null;
  const search = useServiceSearch(name, pageToken);
  const [creating, setCreating] = useState(false);
  const create = useCreateService();
  useReadyMark('rc:services-ready', search.isSuccess);

  useEffect(() => {
    setTokens([null]);
    if (name !== q) void navigate({ search: name ? { q: name } : {}, replace: true });
  }, [name]); // eslint-disable-line react-hooks/exhaustive-deps

  const services = search.data?.entities ?? [];
  const nextPageToken = search.data?.nextPageToken ?? '';

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Services</Title>
        {canAll && <Button onClick={() => setCreating(true)}>New service</Button>}
      </Group>
      <TextInput
        label="Search services"
        placeholder="Part of a name"
        type="search"
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
        maw={420}
        rightSection={search.isFetching ? <Loader size="xs" aria-label="Searching" /> : null}
      />
      {search.isError && <ProblemAlert error={search.error} />}
      {search.isSuccess && services.length === 0 ? (
        name ? (
          <EmptyState title={`No service matches “${name}”`}>Try another part of the name.</EmptyState>
        ) : (
          <EmptyState title="No services yet">
            {canAll
              ? 'Create the first one with New service; then register a version from your application with the SDK.'
              : 'An admin creates services and adds you as a member; then you can change their values here.'}
          </EmptyState>
        )
      ) : (
        <Table striped highlightOnHover aria-label="Services" aria-busy={search.isFetching} className="rc-stack">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Description</Table.Th>
              <Table.Th>Contact</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {services.map((service) => (
              <Table.Tr key={service.id}>
                <Table.Td>
                  <AnchorLink to="/services/$serviceId/versions" params={{ serviceId: service.id }}>
                    {service.name}
                  </AnchorLink>
                </Table.Td>
                <Table.Td data-full>
                  {service.description && (
                    <Text size="sm" lineClamp={2}>
                      {service.description}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td data-full>{service.contactEmail ?? ''}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {(tokens.length > 1 || nextPageToken !== '') && (
        <Group>
          <Button variant="default" disabled={tokens.length <= 1} onClick={() => setTokens((t) => t.slice(0, -1))}>
            Previous page
          </Button>
          <Text size="sm">Page {tokens.length}</Text>
          <Button
            variant="default"
            disabled={nextPageToken === ''}
            onClick={() => setTokens((t) => [...t, nextPageToken])}
          >
            Next page
          </Button>
        </Group>
      )}
      <ServiceFormDialog
        opened={creating}
        onClose={() => setCreating(false)}
        title="New service"
        submitLabel="Create"
        mutation={create}
        onSaved={() => setCreating(false)}
      />
    </Stack>
  );
}

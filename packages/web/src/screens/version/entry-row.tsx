import { Badge, Box, Button, Group, Stack, Text } from '@mantine/core';
import type { Entry } from '@realtime-config/protocol/rest';
import { valueTypeName } from '@realtime-config/protocol';
import { AnchorLink } from '../../components/anchor-link';
import { KeyText } from '../../components/key-text';
import { memo } from 'react';
import { SecretEditor } from './editors/secret-editor';
import { ValueEditor } from './editors/value-editor';
import { isStale, type PendingChange } from './pending-changes';

interface EntryRowProps {
  readonly entry: Entry;
  readonly serviceId: string;
  readonly versionId: string;
  readonly pending: PendingChange | undefined;
  readonly onEdit: (entry: Entry, raw: string | null) => void;
  /** Why values cannot be changed here, when they cannot. */
  readonly readOnlyReasonId: string | undefined;
  /** Changed elsewhere a moment ago: highlighted briefly. */
  readonly justChanged: boolean;
  /** Held by an active rollout: its value changes only through the rollout (the server answers 409). */
  readonly rollingOut: boolean;
}

function shown(raw: string | null): string {
  return raw === null ? 'null' : raw === '' ? '""' : raw;
}

/** One entry: its key (a link to its details), type, name and description, and its value editor. */
export const EntryRow = memo(function EntryRow(props: EntryRowProps) {
  const { entry, pending, onEdit, readOnlyReasonId, justChanged, rollingOut } = props;
  const stale = pending !== undefined && isStale(pending, entry);
  const keyId = `key-${entry.id}`;
  const staleId = `stale-${entry.id}`;
  const rolloutId = `rolling-out-${entry.id}`;
  const disabled = readOnlyReasonId !== undefined || rollingOut;
  const value = pending ? pending.raw : entry.rawValue;
  // Every type accepts null (no value: applications read their default).
  const canSetNull = entry.isSecret ? (pending ? pending.raw !== null : entry.hasValue) : value !== null;
  const describedBy =
    [stale ? staleId : undefined, rollingOut ? rolloutId : undefined, readOnlyReasonId].filter(Boolean).join(' ') ||
    undefined;

  return (
    <Box className={justChanged ? 'rc-entry-row rc-changed' : 'rc-entry-row'} py="sm" px="xs">
      <Stack gap={2}>
        <Group gap="xs" wrap="wrap">
          <AnchorLink
            id={keyId}
            to="/services/$serviceId/versions/$versionId/entries/$entryId"
            params={{ serviceId: props.serviceId, versionId: props.versionId, entryId: entry.id }}
            ff="monospace"
            fw={600}
          >
            <KeyText value={entry.key} />
          </AnchorLink>
          <Badge variant="outline" size="sm">
            {valueTypeName(entry.valueType)}
          </Badge>
          {entry.isSecret && (
            <Badge color="grape" size="sm">
              Secret
            </Badge>
          )}
          {pending && !stale && (
            <Badge color="blue" size="sm">
              Edited
            </Badge>
          )}
          {stale && (
            <Badge color="orange" size="sm">
              Changed elsewhere
            </Badge>
          )}
          {rollingOut && (
            <Badge color="indigo" size="sm">
              Rolling out
            </Badge>
          )}
          {justChanged && !stale && (
            <Badge color="yellow" size="sm" autoContrast>
              Updated just now
            </Badge>
          )}
        </Group>
        {entry.name !== entry.key && <Text size="sm">{entry.name}</Text>}
        {entry.description && (
          <Text size="sm" c="dimmed">
            {entry.description}
          </Text>
        )}
      </Stack>
      <Stack gap={4}>
        {entry.isSecret ? (
          <SecretEditor
            entry={entry}
            serviceId={props.serviceId}
            versionId={props.versionId}
            keyId={keyId}
            value={value}
            edited={pending !== undefined}
            onChange={(raw) => onEdit(entry, raw)}
            error={pending?.error}
            disabled={disabled}
            describedBy={describedBy}
          />
        ) : (
          <ValueEditor
            entry={entry}
            value={value}
            onChange={(raw) => onEdit(entry, raw)}
            error={pending?.error}
            disabled={disabled}
            describedBy={describedBy}
          />
        )}
        {rollingOut && (
          <Text size="xs" c="dimmed" id={rolloutId}>
            A rollout is bringing a new value to the instances: this value changes when it completes or is rolled back
            (see Rollouts).
          </Text>
        )}
        {entry.overrides.length > 0 && (
          <Group gap="xs">
            <Badge variant="outline" size="sm" tt="none">
              {entry.overrides.length === 1 ? '1 override' : `${entry.overrides.length} overrides`}
            </Badge>
            <Text size="xs" c="dimmed">
              Instances with matching labels get another value (see the details).
            </Text>
          </Group>
        )}
        {pending && !entry.isSecret && (
          <Text size="xs" c="dimmed">
            Before your edit: <code>{shown(pending.baseRaw)}</code>
          </Text>
        )}
        {stale && (
          <Text size="xs" c="orange" id={staleId}>
            {entry.isSecret ? (
              'Changed elsewhere.'
            ) : (
              <>
                Changed elsewhere to <code>{shown(entry.rawValue)}</code>.
              </>
            )}{' '}
            Your edit is kept; saving asks which to keep.
          </Text>
        )}
        {canSetNull && !disabled && (
          <Group>
            <Button size="compact-xs" variant="subtle" onClick={() => onEdit(entry, null)} aria-describedby={keyId}>
              Set null
            </Button>
          </Group>
        )}
      </Stack>
    </Box>
  );
});

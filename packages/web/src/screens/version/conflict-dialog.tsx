import { Button, Code, Group, Modal, SimpleGrid, Stack, Text } from '@mantine/core';
import type { Entry } from '@realtime-config/protocol/rest';
import { TimeText } from '../../components/time-text';
import type { PendingChange } from './pending-changes';

export interface Conflict {
  readonly change: PendingChange;
  readonly stored: Entry | undefined;
}

interface ConflictDialogProps {
  /** The conflicts still to resolve; the first is shown. */
  readonly conflicts: readonly Conflict[];
  readonly onKeepMine: (conflict: Conflict) => void;
  readonly onUseStored: (conflict: Conflict) => void;
  readonly onClose: () => void;
}

function Value({ raw }: { raw: string | null }) {
  return (
    <Code block style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
      {raw === null ? 'null' : raw === '' ? '""' : raw}
    </Code>
  );
}

/**
 * A save refused because entries changed since they were edited (409): one conflict at a time, the
 * stored value beside the user's; keep either, then save again.
 */
export function ConflictDialog({ conflicts, onKeepMine, onUseStored, onClose }: ConflictDialogProps) {
  const conflict = conflicts[0];
  return (
    <Modal
      opened={conflict !== undefined}
      onClose={onClose}
      size="lg"
      title={conflict ? `Conflict on ${conflict.change.key}` : 'Conflict'}
      closeOnClickOutside={false}
    >
      {conflict && (
        <Stack>
          <Text>
            Someone changed <Code>{conflict.change.key}</Code> after you started editing it.
            {conflicts.length > 1 && ` (${conflicts.length - 1} more after this one.)`} Choose the value to keep;
            nothing is saved until you save again.
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <Stack gap={4}>
              <Text fw={600}>Stored value</Text>
              {conflict.stored ? (
                <>
                  <Value raw={conflict.stored.rawValue} />
                  <Text size="xs" c="dimmed">
                    revision {conflict.stored.generation}, saved <TimeText iso={conflict.stored.updatedAt} />
                  </Text>
                </>
              ) : (
                <Text>The entry was deleted.</Text>
              )}
            </Stack>
            <Stack gap={4}>
              <Text fw={600}>Your value</Text>
              <Value raw={conflict.change.raw} />
              <Text size="xs" c="dimmed">
                typed over revision {conflict.change.baseGeneration}
              </Text>
            </Stack>
          </SimpleGrid>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => onUseStored(conflict)}>
              Use stored value
            </Button>
            <Button onClick={() => onKeepMine(conflict)} disabled={!conflict.stored}>
              Keep mine
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { ProblemAlert } from './problem-alert';

interface ConfirmDialogProps {
  readonly opened: boolean;
  readonly title: string;
  readonly children: ReactNode;
  /** The name of the confirming button, e.g. "Delete service". */
  readonly confirmLabel: string;
  readonly onConfirm: () => void;
  readonly onClose: () => void;
  readonly pending?: boolean;
  readonly error?: unknown;
}

/** A destructive action asks first, says what it will do, and shows why it failed. */
export function ConfirmDialog(props: ConfirmDialogProps) {
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={props.title}>
      <Stack>
        <Text>{props.children}</Text>
        {props.error != null && <ProblemAlert error={props.error} />}
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            Cancel
          </Button>
          <Button color="red" onClick={props.onConfirm} loading={props.pending}>
            {props.confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

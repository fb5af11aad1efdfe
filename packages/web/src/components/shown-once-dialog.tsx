import { Alert, Button, Code, CopyButton, Group, Modal, Stack } from '@mantine/core';
import type { ReactNode } from 'react';

export interface ShownOnceDialogProps {
  /** The credential, or null while the dialog is closed. */
  readonly value: string | null;
  readonly title: string;
  /** The accessible name of the shown value, e.g. "New API key". */
  readonly valueLabel: string;
  /** The copy button's name, e.g. "Copy key". */
  readonly copyLabel: string;
  /** What to do with it; the alert above the value says it is shown only now. */
  readonly children: ReactNode;
  readonly alertTitle?: string;
  /** The alert's colour (Mantine), yellow unless given. */
  readonly alertColor?: string;
  readonly onClose: () => void;
}

/**
 * A credential the server shows only in the answer that made it (API key, personal token, webhook
 * secret): the value, a warning to copy it now, a copy button and Done. Clicking outside does not
 * close it, so the value is not lost by a stray click.
 */
export function ShownOnceDialog(props: ShownOnceDialogProps) {
  const { value } = props;
  return (
    <Modal opened={value !== null} onClose={props.onClose} title={props.title} closeOnClickOutside={false}>
      {value !== null && (
        <Stack>
          <Alert color={props.alertColor ?? 'yellow'} title={props.alertTitle ?? 'Copy it now'}>
            {props.children}
          </Alert>
          <Code block aria-label={props.valueLabel} style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}>
            {value}
          </Code>
          <Group justify="flex-end">
            <CopyButton value={value}>
              {({ copied, copy }) => (
                <Button variant="light" onClick={copy}>
                  {copied ? 'Copied' : props.copyLabel}
                </Button>
              )}
            </CopyButton>
            <Button onClick={props.onClose}>Done</Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

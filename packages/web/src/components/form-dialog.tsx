import { Button, Group, Modal, Stack, type ModalProps } from '@mantine/core';
import { useEffect, type ReactNode } from 'react';
import { ProblemAlert } from './problem-alert';
import { useNarrow } from './use-narrow';

interface FormDialogProps {
  readonly opened: boolean;
  readonly onClose: () => void;
  readonly title: string;
  /** The name of the submit button ("Create", "Save service"). */
  readonly submitLabel: string;
  readonly size?: ModalProps['size'];
  /** The request the form sends: its pending state and its problem, reset each time the dialog opens. */
  readonly mutation: { readonly isPending: boolean; readonly error: unknown; reset(): void };
  /** Fields whose server errors the form shows on the fields themselves. */
  readonly fields: readonly string[];
  /** Puts the form back to its starting values when the dialog opens. */
  readonly onOpen: () => void;
  readonly onSubmit: () => void;
  readonly children: ReactNode;
}

/** A dialog with a form: its fields, the server's problem (detail and other field errors), Cancel and submit. */
export function FormDialog(props: FormDialogProps) {
  const { opened, onOpen, mutation } = props;
  const narrow = useNarrow();
  useEffect(() => {
    if (!opened) return;
    onOpen();
    mutation.reset();
    // Only when the dialog opens: typing must not be reset.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [opened]);

  return (
    <Modal opened={opened} onClose={props.onClose} title={props.title} size={props.size} fullScreen={narrow}>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          props.onSubmit();
        }}
      >
        <Stack>
          {mutation.error != null && <ProblemAlert error={mutation.error} hideFields={props.fields} />}
          {props.children}
          <Group justify="flex-end">
            <Button variant="default" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={mutation.isPending}>
              {props.submitLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

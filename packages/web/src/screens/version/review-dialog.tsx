import { Text } from '@mantine/core';
import { useState } from 'react';
import type { ChangeRequest } from '@realtime-config/protocol/rest';
import { ProblemError } from '../../api/problem';
import { FormDialog } from '../../components/form-dialog';
import { ChangeDiff, type DiffRow } from './change-diff';
import { CHANGE_REQUEST_FIELDS, ChangeRequestText, changeRequestText } from './change-request-text';
import { useOpenChangeRequest } from './use-change-requests';

/** A value the request will set, with the generation of the entry it was read at. */
export interface RequestedValue extends DiffRow {
  readonly generation: number;
}

interface ReviewDialogProps {
  readonly opened: boolean;
  readonly onClose: () => void;
  readonly serviceId: string;
  readonly versionId: string;
  readonly values: readonly RequestedValue[];
  /** A title to start from ("Import of settings.yaml"). */
  readonly suggestedTitle?: string;
  readonly onOpened: (request: ChangeRequest) => void;
}

/**
 * `Request review…`: the way to change a protected version. Opens a change request with the values
 * (each with its generation), which another editor or owner approves before anyone applies it.
 */
export function ReviewDialog(props: ReviewDialogProps) {
  const open = useOpenChangeRequest(props.serviceId, props.versionId);
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [missing, setMissing] = useState(false);
  const fieldError = (field: string) => (open.error instanceof ProblemError ? open.error.fieldError(field) : undefined);
  const n = props.values.length;

  return (
    <FormDialog
      opened={props.opened}
      onClose={props.onClose}
      title="Request review"
      submitLabel={n === 1 ? 'Request review of 1 change' : `Request review of ${n} changes`}
      size="lg"
      mutation={open}
      fields={CHANGE_REQUEST_FIELDS}
      onOpen={() => {
        setTitle(props.suggestedTitle ?? '');
        setDescription('');
        setMissing(false);
      }}
      onSubmit={() => {
        if (title.trim() === '') {
          setMissing(true);
          return;
        }
        open.mutate(
          {
            ...changeRequestText(title, description),
            changes: props.values.map((v) => ({ id: v.id, rawValue: v.after, generation: v.generation })),
          },
          { onSuccess: props.onOpened },
        );
      }}
    >
      <Text size="sm">
        This version is protected: its values change once another editor or owner approves the request and it is
        applied.
      </Text>
      <ChangeRequestText
        title={title}
        description={description}
        onTitle={(value) => {
          setTitle(value);
          setMissing(false);
        }}
        onDescription={setDescription}
        titleMissing={missing}
        fieldError={fieldError}
      />
      <ChangeDiff rows={props.values} label="Changes to review" />
    </FormDialog>
  );
}

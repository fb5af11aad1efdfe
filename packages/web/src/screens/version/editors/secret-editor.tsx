import { Button, Code, Group, Stack, Text, TextInput } from '@mantine/core';
import type { Entry } from '@realtime-config/protocol/rest';
import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../../api/client';
import { ProblemAlert } from '../../../components/problem-alert';
import { useMe } from '../../sign-in/use-session';
import type { EditorProps } from './editor-props';
import { useExtraDescription } from './use-extra-description';

const MASK = '••••••';

interface SecretEditorProps extends Omit<EditorProps, 'entry'> {
  readonly entry: Pick<Entry, 'id' | 'key' | 'valueType' | 'enumDefinition' | 'hasValue'>;
  readonly serviceId: string;
  readonly versionId: string;
  /** An edit is pending: `value` is the user's new value, not the stored one. */
  readonly edited: boolean;
  /** The id of the element showing the key: the Reveal and Hide buttons are described by it. */
  readonly keyId: string;
}

/**
 * A secret's editor: labelled by its key like every editor, it never shows the stored value (the
 * server does not send it): `••••••` stands for it. A new value can be typed without revealing the
 * old; users with the canReveal policy can reveal it (audited by the server).
 */
export function SecretEditor(props: SecretEditorProps) {
  const { entry, value, edited, onChange, error, disabled, describedBy } = props;
  const ref = useExtraDescription<HTMLInputElement>(describedBy);
  const me = useMe();
  const canReveal = me.data?.policies.includes('canReveal') ?? false;
  const reveal = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/configentries/{serviceId}/{versionId}/{entryId}/reveal', {
          params: { path: { serviceId: props.serviceId, versionId: props.versionId, entryId: entry.id } },
        }),
      ),
  });

  return (
    <Stack gap={4}>
      <TextInput
        type="password"
        aria-label={entry.key}
        ref={ref}
        placeholder={entry.hasValue ? MASK : 'null'}
        value={edited ? (value ?? '') : ''}
        onChange={(e) => onChange(e.currentTarget.value)}
        error={error ?? undefined}
        disabled={disabled}
        autoComplete="new-password"
      />
      {canReveal && entry.hasValue && (
        <Group gap="xs">
          {reveal.isSuccess ? (
            <Button size="compact-xs" variant="subtle" onClick={() => reveal.reset()} aria-describedby={props.keyId}>
              Hide
            </Button>
          ) : (
            <Button
              size="compact-xs"
              variant="subtle"
              loading={reveal.isPending}
              onClick={() => reveal.mutate()}
              aria-describedby={props.keyId}
            >
              Reveal
            </Button>
          )}
        </Group>
      )}
      {reveal.isSuccess && (
        <Text size="xs">
          Stored value: <Code>{reveal.data.rawValue ?? 'null'}</Code>
        </Text>
      )}
      {reveal.isError && <ProblemAlert error={reveal.error} />}
    </Stack>
  );
}

import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { asProblem } from '../../api/problem';
import { count } from '../../components/plain-words';
import { ProblemAlert } from '../../components/problem-alert';
import { useNarrow } from '../../components/use-narrow';
import { PlanView } from './plan-view';
import { usePlan, type PlanRequest } from './use-plans';

interface PlanDialogProps {
  readonly opened: boolean;
  readonly onClose: () => void;
  readonly title: string;
  readonly serviceId: string;
  readonly versionId: string;
  /** The request, or why it cannot be made yet (shown instead of previewing); may wait (a file being read). */
  readonly request: () => PlanRequest | string | Promise<PlanRequest | string>;
  /** The name of the applying button for `count` changes, e.g. "Restore 3 entries". */
  readonly applyLabel: (count: number) => string;
  /** Told once the plan was applied (the caller refreshes what the dialog covers). */
  readonly onApplied?: () => void;
  /** Inputs that shape the request (a time, a file…); without them the dry run starts on opening. */
  readonly children?: ReactNode;
}

/**
 * Every restore and import in the console: a dry run shows exactly what would change (nothing does),
 * then applying sends that dry run's token, so a change made meanwhile is refused (409) and nothing
 * changes; the dialog says so and offers a new preview.
 */
export function PlanDialog(props: PlanDialogProps) {
  const { preview, apply } = usePlan(props.serviceId, props.versionId);
  const requested = useRef<PlanRequest | null>(null);
  const [hint, setHint] = useState<string | null>(null);

  const [preparing, setPreparing] = useState(false);

  const runPreview = async () => {
    setPreparing(true);
    const request = await Promise.resolve(props.request()).finally(() => setPreparing(false));
    apply.reset();
    if (typeof request === 'string') {
      setHint(request);
      preview.reset();
      return;
    }
    setHint(null);
    requested.current = request;
    preview.mutate(request);
  };

  // Without inputs there is nothing to choose: preview at once.
  useEffect(() => {
    if (props.opened && !props.children) void runPreview();
    if (!props.opened) {
      preview.reset();
      apply.reset();
    }
  }, [props.opened]); // eslint-disable-line react-hooks/exhaustive-deps

  const narrow = useNarrow();
  const plan = preview.data;
  const conflict = apply.isError && asProblem(apply.error).status === 409;
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={props.title} size="xl" fullScreen={narrow}>
      <Stack>
        {props.children}
        {props.children && (
          <Group>
            <Button
              variant={plan ? 'default' : 'filled'}
              onClick={() => void runPreview()}
              loading={preparing || preview.isPending}
            >
              Preview
            </Button>
          </Group>
        )}
        {hint && <Alert color="yellow">{hint}</Alert>}
        {preview.isError && <ProblemAlert error={preview.error} />}
        {plan && !apply.isSuccess && <PlanView plan={plan} caption="Changes of the preview" />}
        {apply.isSuccess && (
          <>
            <Text c="green" role="status">
              Applied {count(apply.data.changes.length, 'change')} as one batch.
            </Text>
            <PlanView plan={apply.data} caption="Applied changes" />
          </>
        )}
        {apply.isError && <ProblemAlert error={apply.error} />}
        {conflict && <Text>Something changed since the preview: preview again to see the values as they are now.</Text>}
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onClose}>
            {apply.isSuccess ? 'Done' : 'Cancel'}
          </Button>
          {plan && !apply.isSuccess && plan.changes.length > 0 && (
            <Button
              loading={apply.isPending}
              disabled={conflict}
              onClick={() =>
                requested.current &&
                apply.mutate({ plan: requested.current, basedOn: plan.basedOn }, { onSuccess: props.onApplied })
              }
            >
              {props.applyLabel(plan.changes.length)}
            </Button>
          )}
        </Group>
      </Stack>
    </Modal>
  );
}

import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { ChangeRequest } from '@realtime-config/protocol/rest';
import { asProblem } from '../../api/problem';
import { count } from '../../components/plain-words';
import { ProblemAlert } from '../../components/problem-alert';
import { useNarrow } from '../../components/use-narrow';
import { breaksRules, PlanView } from './plan-view';
import { valuesOfPlan } from './plan-review';
import { ReviewDialog } from './review-dialog';
import { usePlan, type PlanRequest } from './use-plans';
import { useVersion } from './use-version';

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
 * changes; the dialog says so and offers a new preview. On a protected version the preview becomes
 * a change request (`Request review…`) instead.
 */
export function PlanDialog(props: PlanDialogProps) {
  const { preview, apply } = usePlan(props.serviceId, props.versionId);
  const requested = useRef<PlanRequest | null>(null);
  const [hint, setHint] = useState<string | null>(null);

  const [preparing, setPreparing] = useState(false);
  const isProtected = useVersion(props.serviceId, props.versionId).data?.protected ?? false;
  const [reviewing, setReviewing] = useState(false);
  const [opened, setOpened] = useState<ChangeRequest | null>(null);

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
      setOpened(null);
    }
  }, [props.opened]); // eslint-disable-line react-hooks/exhaustive-deps

  const narrow = useNarrow();
  const plan = preview.data;
  const conflict = apply.isError && asProblem(apply.error).status === 409;
  const review = isProtected && plan && plan.changes.length > 0 ? valuesOfPlan(plan) : null;
  const done = apply.isSuccess || opened !== null;
  return (
    <Modal opened={props.opened} onClose={props.onClose} title={props.title} size="xl" fullScreen={narrow}>
      <Stack>
        {isProtected && (
          <Text size="sm">
            This version is protected: what the preview shows becomes a change request that another editor or owner
            approves.
          </Text>
        )}
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
        {plan && !done && <PlanView plan={plan} caption="Changes of the preview" />}
        {typeof review === 'string' && !done && <Alert color="yellow">{review}</Alert>}
        {opened && (
          <Text c="green" role="status">
            Change request “{opened.title}” opened with {count(opened.changes.length, 'change')}: it applies once
            approved.
          </Text>
        )}
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
            {done ? 'Done' : 'Cancel'}
          </Button>
          {Array.isArray(review) && !done && <Button onClick={() => setReviewing(true)}>Request review…</Button>}
          {plan && !done && !isProtected && plan.changes.length > 0 && (
            <Button
              loading={apply.isPending}
              disabled={conflict || breaksRules(plan)}
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
      {Array.isArray(review) && (
        <ReviewDialog
          opened={reviewing}
          onClose={() => setReviewing(false)}
          serviceId={props.serviceId}
          versionId={props.versionId}
          values={review}
          suggestedTitle={props.title}
          onOpened={(request) => {
            setReviewing(false);
            setOpened(request);
          }}
        />
      )}
    </Modal>
  );
}

import type { PlanOutcome, Service, Version } from '@realtime-config/protocol/rest';
import { Option, type Command } from 'commander';
import { contextOf, type CommandContext, type GlobalOptions } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { shown, table } from '../output.js';
import { unwrap } from '../rest.js';
import { resolveService, resolveVersion } from '../targets.js';
import { addRolloutOptions, inOptionWords, rolloutSettingsOf, type RolloutOptions } from './rollout-settings.js';

const STATUSES = ['open', 'approved', 'applied', 'stale', 'rejected', 'withdrawn'] as const;
const STEPS = ['approve', 'apply', 'reject', 'withdraw'] as const;
type Step = (typeof STEPS)[number];

const STEP_HELP: Record<Step, string> = {
  approve: 'Approve a change request (not your own)',
  apply: 'Apply an approved change request as one batch (exit 3 and status stale if any entry changed since)',
  reject: 'Reject a change request (an editor or owner)',
  withdraw: 'Withdraw your own change request',
};

/** One value a change request sets: the entry, its new raw value, the generation it was read at. */
export interface RequestedChange {
  readonly id: string;
  readonly rawValue: string | null;
  readonly generation: number;
}

/** `--request-review <title>` on set, import, promote and restore. */
export const requestReviewOption = (): Option =>
  new Option(
    '--request-review <title>',
    'open a change request with these changes instead of applying them (the way to change a protected version)',
  );

/** Opens a change request on the version and prints it. */
export async function requestReview(
  ctx: CommandContext,
  service: Service,
  version: Version,
  title: string,
  changes: readonly RequestedChange[],
): Promise<void> {
  if (changes.length === 0) {
    ctx.out.result({ changes: [] }, () => 'Nothing to change: no change request opened.');
    return;
  }
  const opened = await unwrap(
    ctx.api.POST('/api/configversions/{serviceId}/{versionId}/changerequests', {
      params: { path: { serviceId: service.id, versionId: version.id } },
      body: { title, changes: [...changes] },
    }),
  );
  ctx.out.result(opened, () =>
    [
      `Opened change request ${opened.id} on ${service.name} ${version.versionLabel}: ${opened.changes.length} change(s), ` +
        `${opened.requiredApprovals} approval(s) needed.`,
      `Another editor or owner approves it: realtime-config review approve ${service.name} ${version.versionLabel} ${opened.id}`,
    ].join('\n'),
  );
}

/**
 * The changes of a dry run's plan as a change request's: value sets only. A plan that would create,
 * delete or re-type a key cannot go through review: those stay the owner's, on an unprotected version.
 */
export function changesOfPlan(plan: PlanOutcome): RequestedChange[] {
  const structural = plan.changes.filter((c) => c.action !== 'set');
  if (structural.length > 0) {
    throw new CliError(
      `A change request only sets values; this would also ${structural.map((c) => `${c.action} ${c.key}`).join(', ')}. ` +
        'Leave those keys out (--keys), or have an owner lift the protection for them.',
      EXIT.rejected,
    );
  }
  return plan.changes.map((c) => {
    const current = c.current;
    if (!current?.id || current.generation === undefined) {
      throw new CliError(`The server's plan does not name the entry of ${c.key}.`, EXIT.failure);
    }
    return { id: current.id, rawValue: c.next?.value ?? null, generation: current.generation };
  });
}

/** Adds the way forward to the 409 a protected version answers to a direct change. */
export async function onProtected<T>(version: Version, change: Promise<T>): Promise<T> {
  try {
    return await change;
  } catch (error) {
    if (error instanceof CliError && error.exitCode === EXIT.conflict && version.protected) {
      throw new CliError(
        `Version ${version.versionLabel} is protected: add --request-review "<title>" to open a change request instead.`,
        EXIT.conflict,
      );
    }
    throw error;
  }
}

/** review list|show|approve|apply|reject|withdraw: change requests of protected versions. */
export function reviewCommands(program: Command, globals: () => GlobalOptions): void {
  const review = program
    .command('review')
    .description('Change requests: how values of a protected version change, reviewed by a second person')
    .addHelpText(
      'after',
      '\nExamples:\n  realtime-config set payments 1.0 Payments:TimeoutSeconds=45 --request-review "Longer timeout"\n' +
        '  realtime-config review list payments 1.0 --status open\n' +
        '  realtime-config review approve payments 1.0 <id>      (someone other than the author)\n' +
        '  realtime-config review apply payments 1.0 <id>',
    );

  const target = async (serviceArg: string, versionArg: string) => {
    const ctx = contextOf(globals());
    const service = await resolveService(ctx.api, serviceArg);
    const version = await resolveVersion(ctx.api, service, versionArg);
    return { ctx, path: { serviceId: service.id, versionId: version.id } };
  };

  review
    .command('list')
    .description('The change requests of a version, newest first')
    .argument('<service>', 'service name or id')
    .argument('<version>', 'version label or id')
    .addOption(new Option('--status <status>', 'only those in this status').choices(STATUSES))
    .action(async (serviceArg: string, versionArg: string, options: { status?: (typeof STATUSES)[number] }) => {
      const { ctx, path } = await target(serviceArg, versionArg);
      const requests = await unwrap(
        ctx.api.GET('/api/configversions/{serviceId}/{versionId}/changerequests', {
          params: { path, query: options.status ? { status: options.status } : {} },
        }),
      );
      ctx.out.result(requests, () =>
        requests.length === 0
          ? 'No change requests.'
          : table(
              ['ID', 'STATUS', 'TITLE', 'AUTHOR', 'APPROVALS', 'CHANGES'],
              requests.map((r) => [
                r.id,
                r.status,
                shown(r.title, 40),
                r.authorName ?? r.author,
                `${r.approvals.length}/${r.requiredApprovals}`,
                String(r.changes.length),
              ]),
            ),
      );
    });

  review
    .command('show')
    .description('One change request: each key, its value now and the value asked for')
    .argument('<service>', 'service name or id')
    .argument('<version>', 'version label or id')
    .argument('<id>', 'the change request')
    .action(async (serviceArg: string, versionArg: string, id: string) => {
      const { ctx, path } = await target(serviceArg, versionArg);
      const request = await unwrap(
        ctx.api.GET('/api/configversions/{serviceId}/{versionId}/changerequests/{changeRequestId}', {
          params: { path: { ...path, changeRequestId: id } },
        }),
      );
      ctx.out.result(request, () =>
        [
          `${request.title} (${request.status}), by ${request.authorName ?? request.author}; ` +
            `approved by ${request.approvals.map((a) => a.userName ?? a.userId).join(', ') || 'nobody yet'}` +
            ` (${request.requiredApprovals} needed)`,
          table(
            ['KEY', 'NOW', 'REQUESTED', 'READ AT', 'NOW AT'],
            request.changes.map((c) => [
              c.key ?? c.id,
              shown(c.currentValue, 40),
              shown(c.rawValue, 40),
              String(c.generation),
              c.currentGeneration === null ? '(deleted)' : String(c.currentGeneration),
            ]),
          ),
        ].join('\n'),
      );
    });

  for (const step of STEPS) {
    const command = review
      .command(step)
      .description(STEP_HELP[step])
      .argument('<service>', 'service name or id')
      .argument('<version>', 'version label or id')
      .argument('<id>', 'the change request');
    if (step === 'apply') {
      addRolloutOptions(command, false).addHelpText(
        'after',
        '\nWith --steps and --step the approved values are rolled out step by step instead (the only way to roll\n' +
          'out on a protected version):\n  realtime-config review apply payments 1.0 <id> --steps 10,50,100 --step 5m --bake 10m',
      );
    }
    command.action(async (serviceArg: string, versionArg: string, id: string, options: RolloutOptions) => {
      const { ctx, path } = await target(serviceArg, versionArg);
      const asRollout =
        step === 'apply' &&
        [options.steps, options.step, options.startAt, options.match, options.rollbackShare].some(
          (o) => o !== undefined,
        );
      const body = asRollout ? { rollout: rolloutSettingsOf(options) } : undefined;
      const done = await inOptionWords(
        unwrap(
          ctx.api.POST(`/api/configversions/{serviceId}/{versionId}/changerequests/{changeRequestId}/${step}`, {
            params: { path: { ...path, changeRequestId: id } },
            ...(body ? { body } : {}),
          }),
          // A review step's 409 (approvals missing, stale, closed) says itself what to do: reading
          // the request again changes none of it.
          '',
        ),
      );
      ctx.out.result(done, () =>
        asRollout
          ? `Change request ${done.id} is ${done.status}: its values are being rolled out by rollout ${done.rolloutId}. ` +
            `See it: realtime-config rollout status -s ${serviceArg} -v ${versionArg} ${done.rolloutId}`
          : `Change request ${done.id} is ${done.status}.`,
      );
    });
  }
}

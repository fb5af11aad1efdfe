import type { Service, Version } from '@realtime-config/protocol/rest';
import { Option, type Command } from 'commander';
import { contextOf, type CommandContext, type GlobalOptions } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { unwrap } from '../rest.js';
import { listEntries, pickEntries, resolveService, resolveVersion } from '../targets.js';
import {
  addRolloutOptions,
  inOptionWords,
  rolloutSettingsOf,
  type Rollout,
  type RolloutOptions,
} from './rollout-settings.js';
import { rolloutDetails, rolloutList, rolloutSummary } from './rollout-text.js';
import { parseAssignments } from './values.js';

const STATUSES = ['scheduled', 'running', 'paused', 'baking', 'completed', 'rolled_back'] as const;
const ACTIONS = ['pause', 'resume', 'promote', 'rollback'] as const;
type Action = (typeof ACTIONS)[number];

const ACTION_HELP: Record<Action, string> = {
  pause: 'Pause: instances keep what they have; no step is taken until resumed',
  resume: 'Resume a paused rollout: its current step (or bake) is timed again from now',
  promote: 'Skip to the end: the new values become the values for every instance at once',
  rollback: 'Roll back: every instance that got a new value gets the old one back',
};

interface TargetOptions {
  readonly service: string;
  readonly version: string;
}

/** The service and version every rollout command names with --service and --version. */
const withTarget = (command: Command): Command =>
  command
    .requiredOption('-s, --service <service>', 'service name or id')
    .requiredOption('-v, --version <version>', 'version label or id');

/** The command that shows a rollout, for messages. */
const statusCommand = (service: Service, version: Version, id = '') =>
  `realtime-config rollout status -s ${service.name} -v ${version.versionLabel}${id ? ` ${id}` : ''}`;

/** The context, service, version and REST path of a rollout command. */
async function target(globals: GlobalOptions, options: TargetOptions) {
  const ctx: CommandContext = contextOf(globals);
  const service = await resolveService(ctx.api, options.service);
  const version = await resolveVersion(ctx.api, service, options.version);
  return { ctx, service, version, path: { serviceId: service.id, versionId: version.id } };
}

/** A refused start on a protected version says how a rollout gets there: through a change request. */
async function onProtected<T>(service: Service, version: Version, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof CliError && error.exitCode === EXIT.conflict && version.protected) {
      throw new CliError(
        `Version ${version.versionLabel} is protected: a rollout there goes through a change request. Open one ` +
          `(realtime-config set ${service.name} ${version.versionLabel} KEY=VALUE… --request-review "<title>"); once ` +
          'another editor approved it, apply it as a rollout with `realtime-config review apply … <id> --steps … --step …`.',
        EXIT.conflict,
      );
    }
    throw error;
  }
}

/** rollout start|status|pause|resume|promote|rollback|alarm: new values to a growing share of the instances. */
export function rolloutCommands(program: Command, globals: () => GlobalOptions): void {
  const rollout = program
    .command('rollout')
    .description('Rollouts: new values given to a growing share of the instances, step by step')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  realtime-config rollout start -s payments -v 1.0.0 Payments:TimeoutSeconds=45 --steps 10,50,100 --step 5m --bake 10m\n' +
        '  realtime-config rollout status -s payments -v 1.0.0\n' +
        '  realtime-config rollout pause -s payments -v 1.0.0 <id>\n' +
        '  realtime-config rollout alarm -s payments -v 1.0.0 <id> --reason "error rate above 2 %"',
    );

  addRolloutOptions(
    withTarget(
      rollout
        .command('start')
        .description("Start rolling values out: each KEY=VALUE checked against its entry's type, then step by step")
        .argument('<assignments...>', 'KEY=VALUE (the value is the raw text, as `set` takes it)'),
    ),
    true,
  )
    .addHelpText(
      'after',
      '\nExample:\n  realtime-config rollout start -s payments -v 1.0.0 Payments:TimeoutSeconds=45 \\\n' +
        '    --steps 10,50,100 --step 5m --bake 10m --match region=eu\n' +
        'The keys stay locked (exit 3 on any other change of them) until it completes or is rolled back.',
    )
    .action(async (pairs: string[], options: TargetOptions & RolloutOptions) => {
      const assignments = parseAssignments(pairs);
      const settings = rolloutSettingsOf(options);
      const { ctx, service, version, path } = await target(globals(), options);
      const entries = pickEntries(
        await listEntries(ctx.api, service, version),
        assignments.map((a) => a.key),
      );
      const changes = entries.map((e, i) => ({
        id: e.id,
        rawValue: assignments[i]?.value ?? '',
        generation: e.generation,
      }));
      const started = await onProtected(
        service,
        version,
        inOptionWords(
          unwrap(
            ctx.api.POST('/api/configversions/{serviceId}/{versionId}/rollouts', {
              params: { path },
              body: { changes, ...settings },
            }),
          ),
        ),
      );
      ctx.out.result(
        started,
        () => `${rolloutSummary(started)}\nFollow it: ${statusCommand(service, version, started.id)}`,
      );
    });

  withTarget(
    rollout
      .command('status')
      .description("A version's rollouts, newest first (active ones marked), or one with its progress over the steps")
      .argument('[id]', 'the rollout (default: list them)'),
  )
    .addOption(new Option('--status <status>', 'list only those in this status').choices(STATUSES))
    .action(async (id: string | undefined, options: TargetOptions & { status?: (typeof STATUSES)[number] }) => {
      const { ctx, path } = await target(globals(), options);
      if (id === undefined) {
        const list: Rollout[] = await unwrap(
          ctx.api.GET('/api/configversions/{serviceId}/{versionId}/rollouts', {
            params: { path, query: options.status ? { status: options.status } : {} },
          }),
        );
        ctx.out.result(list, () => rolloutList(list));
        return;
      }
      const one: Rollout = await unwrap(
        ctx.api.GET('/api/configversions/{serviceId}/{versionId}/rollouts/{rolloutId}', {
          params: { path: { ...path, rolloutId: id } },
        }),
      );
      ctx.out.result(one, () => rolloutDetails(one));
    });

  for (const action of ACTIONS) {
    withTarget(rollout.command(action).description(ACTION_HELP[action]).argument('<id>', 'the rollout')).action(
      async (id: string, options: TargetOptions) => {
        const { ctx, service, version, path } = await target(globals(), options);
        const done: Rollout = await unwrap(
          ctx.api.POST(`/api/configversions/{serviceId}/{versionId}/rollouts/{rolloutId}/${action}`, {
            params: { path: { ...path, rolloutId: id } },
          }),
          `See where it stands: ${statusCommand(service, version, id)}`,
        );
        ctx.out.result(done, () => rolloutSummary(done));
      },
    );
  }

  withTarget(
    rollout
      .command('alarm')
      .description('An alarm from monitoring: roll back at once, with its reason')
      .argument('<id>', 'the rollout'),
  )
    .requiredOption('--reason <text>', 'why (kept as the rollback\'s reason: "alarm: <text>")')
    .action(async (id: string, options: TargetOptions & { reason: string }) => {
      if (options.reason.trim() === '') throw new CliError('--reason must say why.', EXIT.usage);
      const { ctx, service, version, path } = await target(globals(), options);
      const done: Rollout = await unwrap(
        ctx.api.POST('/api/configversions/{serviceId}/{versionId}/rollouts/{rolloutId}/alarm', {
          params: { path: { ...path, rolloutId: id } },
          body: { reason: options.reason },
        }),
        `See where it stands: ${statusCommand(service, version, id)}`,
      );
      ctx.out.result(done, () => rolloutSummary(done));
    });
}

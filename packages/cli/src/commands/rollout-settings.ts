import type { Body, components } from '@realtime-config/protocol/rest';
import { Option, type Command } from 'commander';
import { CliError, EXIT } from '../errors.js';
import { parseLabelList } from './targeting.js';

/** A rollout as the server answers it (docs/rollouts.md). */
export type Rollout = components['schemas']['Rollout'];

/** How a rollout goes: what `rollout start` and `review apply --steps` send besides the values. */
export type RolloutSettings = NonNullable<
  Body<'/api/configversions/{serviceId}/{versionId}/changerequests/{changeRequestId}/apply', 'post'>['rollout']
>;

/** The options of a rollout's settings, as commander gives them. */
export interface RolloutOptions {
  readonly steps?: string;
  readonly step?: string;
  readonly bake: string;
  readonly startAt?: string;
  readonly match?: string;
  readonly rollbackShare?: string;
}

const SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** `60`, `60s`, `5m`, `1h`, `1d` as seconds; a usage error naming the option otherwise. */
export function parseDuration(option: string, text: string): number {
  const found = /^(\d{1,7})([smhd]?)$/.exec(text.trim());
  if (!found) {
    throw new CliError(`${option} takes a duration such as 60, 60s, 5m, 1h or 1d (got "${text}").`, EXIT.usage);
  }
  return Number(found[1]) * SECONDS[(found[2] || 's') as keyof typeof SECONDS];
}

/**
 * `10,50,100` (a `%` after each is allowed) as percentages. Only the form is checked here; the
 * rules (increasing, ending at 100, how many) are the server's, whose refusal names them.
 */
export function parseSteps(text: string): number[] {
  const parts = text.split(',').map((p) => p.trim().replace(/%$/, ''));
  if (parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) {
    throw new CliError(
      `--steps takes percentages separated by commas, ending at 100, such as 10,50,100 (got "${text}").`,
      EXIT.usage,
    );
  }
  return parts.map(Number);
}

/** Adds the options of a rollout's settings; `required`: --steps and --step must be given. */
export function addRolloutOptions(command: Command, required: boolean): Command {
  return command
    .addOption(
      new Option(
        '--steps <percentages>',
        'the shares of the instances in, step by step, ending at 100 (10,50,100)',
      ).makeOptionMandatory(required),
    )
    .addOption(
      new Option('--step <duration>', 'time between steps: 60, 60s, 5m, 1h (1 s to 1 d)').makeOptionMandatory(required),
    )
    .option('--bake <duration>', 'time at 100 % before the new values become the values (up to 7d)', '0')
    .option('--start-at <time>', 'ISO 8601 time with zone, at most 90 days ahead (default: now)')
    .option('--match <k=v,...>', 'only instances with all these labels (as the SDK sends them)')
    .option(
      '--rollback-share <share>',
      'roll back by itself when this share (0–1) of the instances that got the new values disconnect (default 0.2)',
    );
}

/** The settings the options give; usage errors for what is not even of the right form. */
export function rolloutSettingsOf(options: RolloutOptions): RolloutSettings {
  if (options.steps === undefined || options.step === undefined) {
    throw new CliError('A rollout needs --steps and --step (e.g. --steps 10,50,100 --step 5m).', EXIT.usage);
  }
  let disconnectedShare: number | undefined;
  if (options.rollbackShare !== undefined) {
    disconnectedShare = Number(options.rollbackShare);
    if (options.rollbackShare.trim() === '' || !Number.isFinite(disconnectedShare)) {
      throw new CliError(`--rollback-share takes a share such as 0.2 (got "${options.rollbackShare}").`, EXIT.usage);
    }
  }
  return {
    steps: parseSteps(options.steps),
    stepSeconds: parseDuration('--step', options.step),
    bakeSeconds: parseDuration('--bake', options.bake),
    startAt: options.startAt ?? null,
    match: options.match === undefined ? null : { labels: parseLabelList(options.match) },
    rollback: disconnectedShare === undefined ? null : { disconnectedShare },
  };
}

/** The REST fields of a rollout's settings, by the option that gives them. */
const OPTION_OF: Readonly<Record<string, string>> = {
  steps: '--steps',
  stepSeconds: '--step',
  bakeSeconds: '--bake',
  startAt: '--start-at',
  'match.labels': '--match',
  'rollback.disconnectedShare': '--rollback-share',
};

/**
 * A refused rollout's field errors named as the user gave them: the option (`--step`, `--steps[1]`)
 * instead of the REST field, a value by its place in the command (`changes[0].rawValue` → `[0]`,
 * whose message names the key).
 */
export async function inOptionWords<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (!(error instanceof CliError) || Object.keys(error.fieldErrors).length === 0) throw error;
    const renamed = Object.entries(error.fieldErrors).map(([field, messages]): [string, readonly string[]] => {
      const [, head = field, tail = ''] = /^([^[]+)(\[.*)?$/.exec(field) ?? [];
      if (head === 'changes') return [tail, messages];
      return [(OPTION_OF[head] ?? head) + tail, messages];
    });
    throw new CliError(error.message, error.exitCode, Object.fromEntries(renamed));
  }
}

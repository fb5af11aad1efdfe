import type { HistoryItem, RestoreRequest, ValueSet } from '@realtime-config/protocol/rest';
import type { Command } from 'commander';
import { contextOf, type GlobalOptions } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { actionWords, planText, shown, table } from '../output.js';
import { unwrap } from '../rest.js';
import { changesOfPlan, onProtected, requestReview, requestReviewOption } from './reviews.js';
import { entryIdOfKey, listEntries, pickEntries, resolveService, resolveVersion } from '../targets.js';

/** KEY=VALUE pairs; the value is everything after the first "=" (it may hold "=" itself). */
export function parseAssignments(pairs: readonly string[]): Array<{ key: string; value: string }> {
  return pairs.map((pair) => {
    const at = pair.indexOf('=');
    if (at <= 0) throw new CliError(`"${pair}" is not KEY=VALUE.`, EXIT.usage);
    return { key: pair.slice(0, at), value: pair.slice(at + 1) };
  });
}

/** set, history, restore: changing values and going back. */
export function valueCommands(program: Command, globals: () => GlobalOptions): void {
  program
    .command('set')
    .description('Set values in one batch: all or nothing, with the generations just read')
    .argument('<service>', 'service name or id')
    .argument('<version>', 'version label or id')
    .argument('<assignments...>', 'KEY=VALUE (the value is the raw text: 30, true, ["a"], 00:05:00)')
    .addOption(requestReviewOption())
    .option(
      '--if-generation <KEY=N...>',
      'only if the key is still at generation N (as `get --json` showed it); otherwise nothing changes (exit 3)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  realtime-config set payments 1.0.0 Payments:TimeoutSeconds=45 Payments:Mode=Live\n' +
        '  realtime-config set payments 1.0.0 Payments:TimeoutSeconds=45 --if-generation Payments:TimeoutSeconds=3',
    )
    .action(
      async (
        serviceArg: string,
        versionArg: string,
        pairs: string[],
        options: { ifGeneration?: string[]; requestReview?: string },
      ) => {
        const ctx = contextOf(globals());
        const assignments = parseAssignments(pairs);
        const expected = new Map(
          parseAssignments(options.ifGeneration ?? []).map(({ key, value }) => {
            if (!/^[1-9][0-9]*$/.test(value))
              throw new CliError(`--if-generation ${key}=${value}: N must be a generation (1, 2, …).`, EXIT.usage);
            return [key.toLowerCase(), Number(value)];
          }),
        );
        const service = await resolveService(ctx.api, serviceArg);
        const version = await resolveVersion(ctx.api, service, versionArg);
        const entries = pickEntries(
          await listEntries(ctx.api, service, version),
          assignments.map((a) => a.key),
        );
        const items = entries.map((e, i): ValueSet => ({
          id: e.id,
          rawValue: assignments[i]?.value ?? '',
          generation: expected.get(e.key.toLowerCase()) ?? e.generation,
        }));
        if (options.requestReview !== undefined) {
          await requestReview(ctx, service, version, options.requestReview, items);
          return;
        }
        const updated = await onProtected(
          version,
          unwrap(
            ctx.api.PUT('/api/configentries/{serviceId}/{versionId}/set', {
              params: { path: { serviceId: service.id, versionId: version.id } },
              body: items,
            }),
          ),
        );
        ctx.out.result(updated, () =>
          updated.map((e) => `${e.key} = ${shown(e.rawValue)} (generation ${e.generation})`).join('\n'),
        );
      },
    );

  program
    .command('history')
    .description("A key's changes, newest first (a key deleted since too)")
    .argument('<service>', 'service name or id')
    .argument('<version>', 'version label or id')
    .argument('<key>', 'the key')
    .option('-n, --limit <count>', 'at most this many changes', '20')
    .action(async (serviceArg: string, versionArg: string, key: string, options: { limit: string }) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new CliError('--limit must be a positive number.', EXIT.usage);
      const ctx = contextOf(globals());
      const service = await resolveService(ctx.api, serviceArg);
      const version = await resolveVersion(ctx.api, service, versionArg);
      const entryId = await entryIdOfKey(ctx.api, service, version, key);
      const items: HistoryItem[] = [];
      let pageToken: string | undefined;
      do {
        const page = await unwrap(
          ctx.api.GET('/api/configentries/{serviceId}/{versionId}/{entryId}/history', {
            params: {
              path: { serviceId: service.id, versionId: version.id, entryId },
              query: { pageSize: String(Math.min(500, limit - items.length)), pageToken },
            },
          }),
        );
        items.push(...page.entities);
        pageToken = page.nextPageToken || undefined;
      } while (pageToken && items.length < limit);
      ctx.out.result(items, () =>
        table(
          ['TIME', 'ACTION', 'GENERATION', 'USER', 'VALUE'],
          items.map((h) => [
            h.timestamp,
            actionWords(h.action),
            String(h.generation),
            h.userName ?? h.userId ?? '',
            h.deleted ? '(deleted)' : shown(h.value),
          ]),
        ),
      );
    });

  program
    .command('restore')
    .description('Put values back as they were at a moment: dry run first, then one batch')
    .argument('<service>', 'service name or id')
    .argument('<version>', 'version label or id')
    .requiredOption('--at <time>', 'ISO 8601 time with zone, e.g. 2026-11-20T09:00:00Z')
    .option('-k, --keys <keys...>', 'only these keys (default: every key of the version)')
    .option('--dry-run', 'show what would change and change nothing')
    .addOption(requestReviewOption())
    .addHelpText(
      'after',
      '\nUndo a bad change in one command:\n  realtime-config restore payments 1.0.0 --at 2026-11-20T09:00:00Z\n' +
        'Keys created since are deleted, keys deleted since come back. Exit code 3 when something changed\n' +
        'between the dry run and applying it (nothing is changed then).',
    )
    .action(
      async (
        serviceArg: string,
        versionArg: string,
        options: { at: string; keys?: string[]; dryRun?: boolean; requestReview?: string },
      ) => {
        const ctx = contextOf(globals());
        const service = await resolveService(ctx.api, serviceArg);
        const version = await resolveVersion(ctx.api, service, versionArg);
        const restore = (body: RestoreRequest) =>
          unwrap(
            ctx.api.POST('/api/configentries/{serviceId}/{versionId}/restore', {
              params: { path: { serviceId: service.id, versionId: version.id } },
              body,
            }),
          );
        const wanted = { at: options.at, ...(options.keys ? { keys: options.keys } : {}) };
        let plan = await restore({ ...wanted, dryRun: true });
        if (options.requestReview !== undefined && !options.dryRun) {
          await requestReview(ctx, service, version, options.requestReview, changesOfPlan(plan));
          return;
        }
        if (!options.dryRun && plan.changes.length > 0) {
          plan = await onProtected(version, restore({ ...wanted, dryRun: false, basedOn: plan.basedOn }));
        }
        ctx.out.result(plan, () => planText(plan));
      },
    );
}

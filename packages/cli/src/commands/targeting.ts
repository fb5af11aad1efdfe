import type { Command } from 'commander';
import { contextOf, type GlobalOptions } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { shown, table } from '../output.js';
import { unwrap } from '../rest.js';
import { listEntries, pickEntries, resolveService, resolveVersion } from '../targets.js';

/** `k=v,k2=v2` (as x-rc-labels, `%`, `,` and `=` inside percent-encoded) as a map; usage error when malformed. */
export function parseLabelList(text: string): Record<string, string> {
  const labels = new Map<string, string>();
  for (const part of text.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const at = part.indexOf('=');
    if (at <= 0) throw new CliError(`"${part}" is not key=value.`, EXIT.usage);
    try {
      labels.set(decodeURIComponent(part.slice(0, at)), decodeURIComponent(part.slice(at + 1)));
    } catch {
      throw new CliError(`"${part}" is not valid percent-encoding.`, EXIT.usage);
    }
  }
  return Object.fromEntries(labels);
}

const labelText = (labels: Readonly<Record<string, string>>) =>
  Object.entries(labels)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join(',');

/** `LABELS=>VALUE`: the labels before the first "=>", the raw value after it. */
export function parseOverride(text: string): { labels: Record<string, string>; rawValue: string } {
  const at = text.indexOf('=>');
  if (at <= 0) throw new CliError(`"${text}" is not LABELS=>VALUE (region=eu,tier=gold=>45).`, EXIT.usage);
  return { labels: parseLabelList(text.slice(0, at)), rawValue: text.slice(at + 2) };
}

/** resolve and overrides: what instances with given labels get, and the overrides by label of a key. */
export function targetingCommands(program: Command, globals: () => GlobalOptions): void {
  program
    .command('resolve')
    .description('The values an instance with these labels (and id) gets: an override, or the value')
    .argument('<service>', 'service name or id')
    .argument('<version>', 'version label or id')
    .option('--labels <k=v,...>', "the instance's labels, as the SDK's `labels` option sends them", '')
    .option('--instance-id <id>', "the instance's id")
    .addHelpText('after', '\nExample:\n  realtime-config resolve payments 1.0.0 --labels region=eu,tier=gold')
    .action(async (serviceArg: string, versionArg: string, options: { labels: string; instanceId?: string }) => {
      const ctx = contextOf(globals());
      const service = await resolveService(ctx.api, serviceArg);
      const version = await resolveVersion(ctx.api, service, versionArg);
      const labels = labelText(parseLabelList(options.labels));
      const answer = await unwrap(
        ctx.api.GET('/api/configversions/{serviceId}/{versionId}/resolve', {
          params: {
            path: { serviceId: service.id, versionId: version.id },
            query: { ...(labels ? { labels } : {}), ...(options.instanceId ? { instanceId: options.instanceId } : {}) },
          },
        }),
      );
      ctx.out.result(answer, () =>
        table(
          ['KEY', 'VALUE', 'FROM', 'GENERATION'],
          answer.entries.map((e) => [
            e.key,
            e.redacted ? '(secret)' : shown(e.rawValue),
            e.source === 'override' ? `override ${(e.overrideIndex ?? 0) + 1}` : e.source,
            String(e.generation),
          ]),
        ),
      );
    });

  const overrides = program.command('overrides').description("A key's overrides by label (first match wins)");
  overrides
    .command('get')
    .description("Show a key's overrides, in the order they are matched")
    .argument('<service>', 'service name or id')
    .argument('<version>', 'version label or id')
    .argument('<key>', 'the key')
    .action(async (serviceArg: string, versionArg: string, key: string) => {
      const ctx = contextOf(globals());
      const service = await resolveService(ctx.api, serviceArg);
      const version = await resolveVersion(ctx.api, service, versionArg);
      const [entry] = pickEntries(await listEntries(ctx.api, service, version), [key]);
      const list = entry?.overrides ?? [];
      ctx.out.result(list, () =>
        list.length === 0
          ? `${entry?.key} has no overrides.`
          : table(
              ['#', 'LABELS', 'VALUE'],
              list.map((o, i) => [String(i + 1), labelText(o.labels), o.redacted ? '(secret)' : shown(o.rawValue)]),
            ),
      );
    });
  overrides
    .command('set')
    .description("Replace a key's overrides (none given: remove them all)")
    .argument('<service>', 'service name or id')
    .argument('<version>', 'version label or id')
    .argument('<key>', 'the key')
    .argument('[overrides...]', 'LABELS=>VALUE, in the order they are matched')
    .option('--if-generation <n>', 'only if the key is still at generation N; otherwise nothing changes (exit 3)')
    .addHelpText(
      'after',
      "\nExample:\n  realtime-config overrides set payments 1.0.0 Payments:TimeoutSeconds 'region=eu=>45' 'tier=gold=>60'",
    )
    .action(
      async (
        serviceArg: string,
        versionArg: string,
        key: string,
        pairs: string[],
        options: { ifGeneration?: string },
      ) => {
        if (options.ifGeneration !== undefined && !/^[1-9][0-9]*$/.test(options.ifGeneration))
          throw new CliError('--if-generation must be a generation (1, 2, …).', EXIT.usage);
        const list = pairs.map(parseOverride);
        const ctx = contextOf(globals());
        const service = await resolveService(ctx.api, serviceArg);
        const version = await resolveVersion(ctx.api, service, versionArg);
        const [entry] = pickEntries(await listEntries(ctx.api, service, version), [key]);
        if (!entry) throw new CliError(`No such key in this version: ${key}.`, EXIT.notFound);
        const updated = await unwrap(
          ctx.api.PUT('/api/configentries/{serviceId}/{versionId}/{entryId}/overrides', {
            params: { path: { serviceId: service.id, versionId: version.id, entryId: entry.id } },
            body: { overrides: list, generation: Number(options.ifGeneration ?? entry.generation) },
          }),
        );
        ctx.out.result(
          updated,
          () => `${updated.key}: ${updated.overrides.length} override(s) (generation ${updated.generation})`,
        );
      },
    );
}

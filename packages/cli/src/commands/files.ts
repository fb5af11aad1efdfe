import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type {
  ConfigFileFormat,
  Difference,
  PlanOutcome,
  PromoteRequest,
  Query,
  Service,
  Version,
} from '@realtime-config/protocol/rest';
import { Option, type Command } from 'commander';
import { contextOf, type CommandContext, type GlobalOptions } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { differenceWords, planText, shown, table } from '../output.js';
import { unwrap } from '../rest.js';
import { resolveService, resolveVersion } from '../targets.js';
import { policyWords } from '../vocabulary.js';
import { changesOfPlan, onProtected, requestReview, requestReviewOption } from './reviews.js';

const CONTENT_TYPES: Record<ConfigFileFormat, string> = {
  json: 'application/json',
  yaml: 'application/yaml',
  env: 'text/plain',
};
const FORMATS = Object.keys(CONTENT_TYPES) as ConfigFileFormat[];

/** What an import sets values from: a file, sent as it is, or the values of another version. */
export type ImportSource =
  { readonly file: Blob; readonly format: ConfigFileFormat } | { readonly promote: PromoteRequest };
type ImportQuery = Query<'/api/configversions/{serviceId}/{versionId}/import', 'post'>;

const COMPARED_FIELDS = [
  ['value', 'value'],
  ['valueTypeName', 'type'],
  ['name', 'name'],
  ['description', 'description'],
  ['groupName', 'group'],
  ['groupDescription', 'group description'],
  ['enumDefinition', 'enum values'],
] as const;

/** What differs between the two sides of a key present in both: "value, description". */
function differingFields(d: Difference): string {
  if (!d.base || !d.target) return '';
  const { base, target } = d;
  return COMPARED_FIELDS.filter(([field]) => (base[field] ?? null) !== (target[field] ?? null))
    .map(([, label]) => label)
    .join(', ');
}

/** The format of a file from its extension, when not given. */
export function formatOf(file: string, given: string | undefined): ConfigFileFormat {
  if (given) return given as ConfigFileFormat;
  const ext = path.extname(file).toLowerCase();
  if (ext === '.json') return 'json';
  if (ext === '.yaml' || ext === '.yml') return 'yaml';
  if (ext === '.env' || path.basename(file).startsWith('.env')) return 'env';
  throw new CliError(`Cannot tell the format of ${file}: add --format json|yaml|env.`, EXIT.usage);
}

export async function target(ctx: CommandContext, serviceArg: string, versionArg: string) {
  const service = await resolveService(ctx.api, serviceArg);
  return { service, version: await resolveVersion(ctx.api, service, versionArg) };
}

/** Dry run, then (unless dryRun) the same with its basedOn token: 409 if anything changed between. */
export async function importPlan(
  ctx: CommandContext,
  service: Service,
  version: Version,
  source: ImportSource,
  options: { createMissing: boolean; dryRun: boolean; requestReview?: string },
): Promise<PlanOutcome | undefined> {
  const url = '/api/configversions/{serviceId}/{versionId}/import';
  const path = { serviceId: service.id, versionId: version.id };
  const send = (query: ImportQuery) =>
    unwrap(
      'file' in source
        ? ctx.api.POST(url, {
            params: { path, query: { ...query, format: source.format } },
            // The file's bytes go as they are (the server refuses text that is not UTF-8, rather than
            // the CLI guessing); the typed body only says a file is text.
            body: '',
            bodySerializer: () => source.file,
            headers: { 'content-type': CONTENT_TYPES[source.format] },
          })
        : ctx.api.POST(url, { params: { path, query }, body: source.promote }),
    );
  const createMissing = options.createMissing ? 'true' : 'false';
  const preview = await send({ createMissing, dryRun: 'true' });
  if (options.requestReview !== undefined && !options.dryRun) {
    await requestReview(ctx, service, version, options.requestReview, changesOfPlan(preview));
    return undefined;
  }
  if (options.dryRun || preview.changes.length === 0) return preview;
  return onProtected(version, send({ createMissing, dryRun: 'false', basedOn: preview.basedOn }));
}

/** A file to import, its bytes as they are (the server refuses a file that is not UTF-8 rather than guessing). */
export function readImportFile(
  file: string,
  given: ConfigFileFormat | undefined,
): ImportSource & { format: ConfigFileFormat } {
  const format = file === '-' ? (given ?? 'json') : formatOf(file, given);
  try {
    return { file: new Blob([readFileSync(file === '-' ? 0 : file)]), format };
  } catch (error) {
    throw new CliError(`Cannot read ${file}: ${(error as Error).message}`, EXIT.usage);
  }
}

/** export, import, diff, promote: configuration as files and between versions. */
export function fileCommands(program: Command, globals: () => GlobalOptions): void {
  program
    .command('export')
    .description('Write a version as a file: json or yaml (values with types and metadata), or env')
    .argument('<service>', 'service name or id')
    .argument('<version>', 'version label or id')
    .addOption(new Option('-f, --format <format>', 'file format').choices(FORMATS).default('json'))
    .option('--flat', 'json/yaml: flat "Group:Key" names instead of nested groups')
    .option('-o, --output <file>', 'write to this file instead of standard output')
    .action(
      async (
        serviceArg: string,
        versionArg: string,
        options: { format: ConfigFileFormat; flat?: boolean; output?: string },
      ) => {
        const ctx = contextOf(globals());
        const { service, version } = await target(ctx, serviceArg, versionArg);
        const file = await unwrap(
          ctx.api.GET('/api/configversions/{serviceId}/{versionId}/export', {
            params: {
              path: { serviceId: service.id, versionId: version.id },
              query: { format: options.format, flat: options.flat ? 'true' : undefined },
            },
            parseAs: 'text',
          }),
        );
        if (options.output) {
          writeFileSync(options.output, file);
          ctx.out.note(`Wrote ${service.name} ${version.versionLabel} to ${options.output}.`);
        } else {
          process.stdout.write(file);
        }
      },
    );

  program
    .command('import')
    .description('Set values from a file in one batch (a dry run first; --dry-run stops there)')
    .argument('<service>', 'service name or id')
    .argument('<version>', 'version label or id')
    .argument('<file>', 'the file (json, yaml or env; "-" reads standard input with --format)')
    .addOption(new Option('-f, --format <format>', 'file format (default: from the extension)').choices(FORMATS))
    .option('--dry-run', 'show what would change and change nothing')
    .option('--create-missing', "create keys the version lacks (needs the service's owner) instead of refusing them")
    .addOption(requestReviewOption())
    .action(
      async (
        serviceArg: string,
        versionArg: string,
        file: string,
        options: { format?: ConfigFileFormat; dryRun?: boolean; createMissing?: boolean; requestReview?: string },
      ) => {
        const ctx = contextOf(globals());
        const source = readImportFile(file, options.format);
        const { service, version } = await target(ctx, serviceArg, versionArg);
        const plan = await importPlan(ctx, service, version, source, {
          createMissing: options.createMissing === true,
          dryRun: options.dryRun === true,
          requestReview: options.requestReview,
        });
        if (plan) ctx.out.result(plan, () => planText(plan));
      },
    );

  program
    .command('promote')
    .description('Copy values from one version into another (e.g. 1.0.0 → 1.1.0): dry run first, then one batch')
    .argument('<service>', 'service name or id')
    .argument('<from>', 'the version whose values are copied')
    .argument('<to>', 'the version that receives them')
    .option('-k, --keys <keys...>', 'only these keys (default: every key of <from>)')
    .option('--dry-run', 'show what would change and change nothing')
    .option('--create-missing', "create keys <to> lacks (needs the service's owner)")
    .addOption(requestReviewOption())
    .action(
      async (
        serviceArg: string,
        fromArg: string,
        toArg: string,
        options: { keys?: string[]; dryRun?: boolean; createMissing?: boolean; requestReview?: string },
      ) => {
        const ctx = contextOf(globals());
        const service = await resolveService(ctx.api, serviceArg);
        const from = await resolveVersion(ctx.api, service, fromArg);
        const to = await resolveVersion(ctx.api, service, toArg);
        const plan = await importPlan(
          ctx,
          service,
          to,
          { promote: { fromVersionId: from.id, ...(options.keys ? { keys: options.keys } : {}) } },
          {
            createMissing: options.createMissing === true,
            dryRun: options.dryRun === true,
            requestReview: options.requestReview,
          },
        );
        if (plan) ctx.out.result(plan, () => planText(plan));
      },
    );

  program
    .command('diff')
    .description('Compare two versions key by key')
    .argument('<service>', 'service name or id')
    .argument('<base>', 'base version label or id')
    .argument('<target>', 'target version label or id')
    .option(
      '--target-service <service>',
      `the target version belongs to this service (it compares across services: needs the permission "${policyWords('canAll').name}")`,
    )
    .option('--exit-code', 'exit with 1 when the versions differ, as git diff does')
    .action(
      async (
        serviceArg: string,
        baseArg: string,
        targetArg: string,
        options: { targetService?: string; exitCode?: boolean },
      ) => {
        const ctx = contextOf(globals());
        const service = await resolveService(ctx.api, serviceArg);
        const base = await resolveVersion(ctx.api, service, baseArg);
        const targetService = options.targetService ? await resolveService(ctx.api, options.targetService) : service;
        const targetVersion = await resolveVersion(ctx.api, targetService, targetArg);
        const result = await unwrap(
          ctx.api.GET('/api/configversions/{serviceId}/compare', {
            params: { path: { serviceId: service.id }, query: { base: base.id, target: targetVersion.id } },
          }),
        );
        ctx.out.result(result, () =>
          result.differences.length === 0
            ? `No differences (${result.unchanged} keys).`
            : `${table(
                ['CHANGE', 'KEY', base.versionLabel, targetVersion.versionLabel, 'DIFFERS IN'],
                result.differences.map((d) => [
                  differenceWords(d.change, d.metadataChanged),
                  d.key,
                  d.base ? `${shown(d.base.value, 40)} (${d.base.valueTypeName})` : '–',
                  d.target ? `${shown(d.target.value, 40)} (${d.target.valueTypeName})` : '–',
                  differingFields(d),
                ]),
              )}\n${result.differences.length} differing, ${result.unchanged} unchanged.`,
        );
        if (options.exitCode && result.differences.length > 0) process.exitCode = EXIT.failure;
      },
    );
}

import type { ConfigFileFormat, PlanOutcome } from '@realtime-config/protocol/rest';
import { Option, type Command } from 'commander';
import { contextOf, type GlobalOptions } from '../context.js';
import { EXIT } from '../errors.js';
import { table } from '../output.js';
import { importPlan, readImportFile, target } from './files.js';

/** What a dry run found wrong: every broken rule of a value, every validator that would refuse. */
function problemsOf(plan: PlanOutcome) {
  return {
    violations: plan.changes.flatMap((c) => c.violations),
    refusals: plan.validators.filter((v) => !v.passed),
  };
}

function report(plan: PlanOutcome): string {
  const { violations, refusals } = problemsOf(plan);
  const lines: string[] = [];
  if (violations.length > 0) {
    lines.push(
      table(
        ['KEY', 'WHERE', 'RULE', 'MESSAGE'],
        violations.map((v) => [v.key ?? '', v.instancePath || '(value)', v.keyword, v.message]),
      ),
    );
  }
  for (const v of refusals) lines.push(`validator ${v.url} refused (${v.statusCode ?? 'no answer'}): ${v.message}`);
  const checked = `${plan.changes.length} ${plan.changes.length === 1 ? 'change' : 'changes'}`;
  lines.push(
    violations.length + refusals.length === 0
      ? `Valid: ${checked} would pass every schema${plan.validators.length > 0 ? ` and ${plan.validators.length} validator(s)` : ''}. Nothing was changed.`
      : `Invalid: ${violations.length} broken rule(s), ${refusals.length} validator refusal(s) in ${checked}. Nothing was changed.`,
  );
  return lines.join('\n');
}

/** `validate`: the dry run of an import, for CI: every violation printed, exit 1 on any. */
export function validateCommand(program: Command, globals: () => GlobalOptions): void {
  program
    .command('validate')
    .description(
      "Check a file against a version's schemas and validators without changing anything (a dry run of import); exit 1 on any violation",
    )
    .argument('<file>', 'the file (json, yaml or env; "-" reads standard input with --format)')
    .requiredOption('-s, --service <service>', 'service name or id')
    .requiredOption('-v, --version <version>', 'version label or id')
    .addOption(
      new Option('-f, --format <format>', 'file format (default: from the extension)').choices(['json', 'yaml', 'env']),
    )
    .option(
      '--create-missing',
      'check keys the version lacks too, as an import with --create-missing would create them',
    )
    .action(
      async (
        file: string,
        options: { service: string; version: string; format?: ConfigFileFormat; createMissing?: boolean },
      ) => {
        const ctx = contextOf(globals());
        const source = readImportFile(file, options.format);
        const { service, version } = await target(ctx, options.service, options.version);
        const plan = (await importPlan(ctx, service, version, source, {
          createMissing: options.createMissing === true,
          dryRun: true,
        })) as PlanOutcome;
        const { violations, refusals } = problemsOf(plan);
        const valid = violations.length === 0 && refusals.length === 0;
        ctx.out.result({ valid, ...plan }, () => report(plan));
        if (!valid) process.exitCode = EXIT.failure;
      },
    );
}

import type { Command } from 'commander';
import { contextOf, type GlobalOptions } from '../context.js';
import { shown, table } from '../output.js';
import { listEntries, listServices, listVersions, pickEntries, resolveService, resolveVersion } from '../targets.js';

/** How `get` shows a secret entry, whose value no answer carries. */
const SECRET = '•••••• (secret)';

/** services, versions, get: reading what is there. */
export function browseCommands(program: Command, globals: () => GlobalOptions): void {
  program
    .command('services')
    .description('List services (all pages)')
    .option('-s, --search <text>', 'only services whose name contains this')
    .action(async (options: { search?: string }) => {
      const ctx = contextOf(globals());
      const services = await listServices(ctx.api, options.search);
      ctx.out.result(services, () =>
        services.length === 0
          ? 'No services.'
          : table(
              ['ID', 'NAME', 'DESCRIPTION'],
              services.map((s) => [s.id, s.name, s.description ?? '']),
            ),
      );
    });

  program
    .command('versions')
    .description('List the versions of a service')
    .argument('<service>', 'service name or id')
    .action(async (serviceArg: string) => {
      const ctx = contextOf(globals());
      const service = await resolveService(ctx.api, serviceArg);
      const versions = await listVersions(ctx.api, service.id);
      ctx.out.result(versions, () =>
        versions.length === 0
          ? `${service.name} has no versions yet: an application registers one when it connects with the SDK.`
          : table(
              ['ID', 'LABEL', 'DESCRIPTION'],
              versions.map((v) => [v.id, v.versionLabel, v.description ?? '']),
            ),
      );
    });

  program
    .command('get')
    .description("Show a version's values (all, or the keys given)")
    .argument('<service>', 'service name or id')
    .argument('<version>', 'version label or id')
    .argument('[keys...]', 'keys such as Payments:TimeoutSeconds (without case)')
    .action(async (serviceArg: string, versionArg: string, keys: string[]) => {
      const ctx = contextOf(globals());
      const service = await resolveService(ctx.api, serviceArg);
      const version = await resolveVersion(ctx.api, service, versionArg);
      const all = await listEntries(ctx.api, service, version);
      const entries = keys.length > 0 ? pickEntries(all, keys) : all;
      // A secret's value is in no answer: it reads as the table shows it (`reveal` shows the value).
      const value = (e: (typeof entries)[number]) => (e.isSecret ? SECRET : shown(e.rawValue));
      ctx.out.result(entries, () =>
        keys.length === 1 && entries[0]
          ? entries[0].isSecret
            ? SECRET
            : (entries[0].rawValue ?? '')
          : table(
              ['KEY', 'VALUE', 'GENERATION'],
              entries.map((e) => [e.key, value(e), String(e.generation)]),
            ),
      );
    });
}

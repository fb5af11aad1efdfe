import type { Command } from 'commander';
import { contextOf, type GlobalOptions } from '../context.js';
import { unwrap } from '../rest.js';
import { listEntries, pickEntries, resolveService, resolveVersion } from '../targets.js';
import { policyWords } from '../vocabulary.js';

/** reveal and rotate-secrets: reading secret values (Reveal secrets, audited) and re-wrapping them (Administer). */
export function secretCommands(program: Command, globals: () => GlobalOptions): void {
  program
    .command('reveal')
    .description(
      `Show the values of secret entries (needs the permission "${policyWords('canReveal').name}"; every reveal is audited)`,
    )
    .argument('<service>', 'service name or id')
    .argument('<version>', 'version label or id')
    .argument('<keys...>', 'keys of the entries')
    .addHelpText(
      'after',
      '\nExample:\n  realtime-config reveal payments 1.0.0 Payments:ApiKey\n\nWith one key the value is printed alone (for a script); null prints nothing.',
    )
    .action(async (serviceArg: string, versionArg: string, keys: string[]) => {
      const ctx = contextOf(globals());
      const service = await resolveService(ctx.api, serviceArg);
      const version = await resolveVersion(ctx.api, service, versionArg);
      const entries = pickEntries(await listEntries(ctx.api, service, version), keys);
      const revealed: Array<{ key: string; rawValue: string | null; generation: number }> = [];
      for (const entry of entries) {
        const answer = await unwrap(
          ctx.api.POST('/api/configentries/{serviceId}/{versionId}/{entryId}/reveal', {
            params: { path: { serviceId: service.id, versionId: version.id, entryId: entry.id } },
          }),
        );
        revealed.push({ key: entry.key, rawValue: answer.rawValue, generation: answer.generation });
      }
      ctx.out.result(revealed, () =>
        revealed.length === 1
          ? (revealed[0]?.rawValue ?? '')
          : revealed.map((r) => `${r.key}=${r.rawValue ?? ''}`).join('\n'),
      );
    });

  program
    .command('rotate-secrets')
    .description(
      `Re-wrap every secret value with the current master key (Secrets:MasterKeyFile), after a key change (needs the permission "${policyWords('canAll').name}")`,
    )
    .action(async () => {
      const ctx = contextOf(globals());
      const answer = await unwrap(ctx.api.POST('/api/admin/secrets/rotate'));
      ctx.out.result(answer, () => `Re-wrapped ${answer.rewrapped} sealed values with the current master key.`);
    });
}

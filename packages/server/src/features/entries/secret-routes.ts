import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { problems } from '../../platform/http/schemas.js';
import type { SecretCommands } from './secret-commands.js';

/** The master key's rotation: every data key re-wrapped with the current master key. */
export const secretRoutes: FastifyPluginAsyncTypebox<{ commands: SecretCommands }> = async (app, { commands }) => {
  app.post(
    '/api/admin/secrets/rotate',
    {
      config: { policy: 'canAll' },
      schema: {
        tags: ['entries'],
        summary: 'Re-wrap every secret value with the current master key (canAll)',
        description:
          'Every stored copy of every secret value (current values, audit records, change requests, the change log), the webhook signing secrets, the fingerprint key and the session secret get their data key wrapped by the key of Secrets:MasterKeyFile; the values themselves and their fingerprints stay. Afterwards the files of Secrets:PreviousKeyFiles can be removed. Values that no configured key opens are left as they are.',
        response: {
          200: Type.Object({ rewrapped: Type.Integer({ description: 'Sealed values re-wrapped' }) }),
          ...problems(401, 403, 409),
        },
      },
    },
    async () => ({ rewrapped: await commands.rotate() }),
  );
};

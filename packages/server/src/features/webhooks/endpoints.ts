import { randomBytes } from 'node:crypto';
import { Type } from 'typebox';
import { Nullable } from '../../platform/http/schemas.js';

/*
 * What webhooks and validators share as endpoints a service posts to, signed: the body fields of the
 * REST API that describe one, and the signing secret it gets (the URL rules are webhook-targets.ts).
 */

/** `whsec_` and the base64 of 32 random bytes: the Standard Webhooks form of a signing secret. */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** The URL an endpoint is posted to; `description` tells which hosts are refused. */
export const endpointUrl = (description: string, example: string) =>
  Type.String({ minLength: 1, maxLength: 2048, description, examples: [example] });

/** An endpoint's description, free text; null: none. */
export const EndpointDescription = Nullable(Type.String({ maxLength: 1000 }));

/** The secret in the answer that creates an endpoint (or gives it a new one); `what` is what it signs. */
export const signingSecret = (what: 'deliveries' | 'requests') =>
  Type.String({
    description: `\`whsec_\` and the base64 of 32 random bytes: verify ${what} with it. Shown only in this answer.`,
  });

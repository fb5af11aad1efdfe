import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'undici';
import {
  entryAnswer,
  secretSides,
  type SecretCipher,
  type ValidationRequest,
  type ValidatorAnswer,
  type ValidatorCalls,
  type ValidatorRecord,
} from '../../core/index.js';
import { microsToIso, type Clock } from '../../platform/clock.js';
import { guardedLookup, refusedLiteralHost, signedHeaders } from '../webhooks/index.js';

/** How much of a validator's answer becomes the violation's message. */
const MESSAGE_CHARS = 500;
/** How much of an answer is read: the message and a little more, never a whole large body. */
const READ_BYTES = 4096;

/**
 * The request body: the Standard Webhooks `type` and `timestamp`, and the proposed change with both
 * sides of each entry as every REST answer shows them (secrets redacted).
 */
export function validationBody(request: ValidationRequest, cipher: SecretCipher, now: number): string {
  return JSON.stringify({
    type: 'validation.requested',
    timestamp: microsToIso(now),
    serviceId: request.serviceId,
    versionId: request.versionId,
    versionLabel: request.versionLabel,
    userId: request.actor.userId,
    changes: request.changes.map((c) => {
      const secret = secretSides(c.before, c.after);
      const entry = (c.after ?? c.before) as NonNullable<typeof c.after>;
      return {
        key: entry.key,
        entryId: entry.id,
        before: c.before && entryAnswer(c.before, cipher, { redact: secret.before }),
        after: c.after && entryAnswer(c.after, cipher, { redact: secret.after }),
      };
    }),
  });
}

/** Why an exchange gave no answer, in words for the violation's message. */
function reasonOf(error: unknown, timeoutMs: number): string {
  const err = error as { name?: string; code?: string; message?: string; cause?: { message?: string } };
  if (err.name === 'TimeoutError' || err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT') {
    return `no answer within ${timeoutMs / 1000} s`;
  }
  const message = err.message ?? String(error);
  const cause = err.cause?.message;
  return cause && !message.includes(cause) ? `${message}: ${cause}` : message;
}

/**
 * Asks validators over HTTP (undici): a signed POST to each, in parallel, no redirects followed,
 * `Validation:TimeoutSeconds` for the whole exchange. Without Webhooks:AllowPrivateNetworks every
 * connection goes only to a checked public address, as webhook deliveries do.
 */
export class HttpValidatorCalls implements ValidatorCalls {
  private readonly agent: Agent;

  constructor(
    private readonly options: {
      readonly allowPrivateNetworks: boolean;
      readonly timeoutSeconds: number;
      readonly cipher: SecretCipher;
      readonly clock: Clock;
    },
  ) {
    const timeout = this.timeoutMs;
    this.agent = new Agent({
      headersTimeout: timeout,
      bodyTimeout: timeout,
      connect: { timeout, ...(options.allowPrivateNetworks ? {} : { lookup: guardedLookup }) },
    });
  }

  private get timeoutMs(): number {
    return Math.round(this.options.timeoutSeconds * 1000);
  }

  ask(validators: readonly ValidatorRecord[], request: ValidationRequest): Promise<ValidatorAnswer[]> {
    const now = this.options.clock.nowMicros();
    const body = validationBody(request, this.options.cipher, now);
    return Promise.all(validators.map((v) => this.askOne(v, body, new Date(now / 1000))));
  }

  private async askOne(validator: ValidatorRecord, body: string, at: Date): Promise<ValidatorAnswer> {
    const answer = (passed: boolean, statusCode: number | null, message: string): ValidatorAnswer => ({
      validatorId: validator.id,
      url: validator.url,
      passed,
      statusCode,
      message: message.slice(0, MESSAGE_CHARS),
    });
    if (validator.secret === null) {
      return answer(false, null, 'its signing secret cannot be decrypted (Secrets:MasterKeyFile)');
    }
    if (!this.options.allowPrivateNetworks) {
      const refused = refusedLiteralHost(new URL(validator.url));
      if (refused) return answer(false, null, refused);
    }
    try {
      const response = await httpRequest(validator.url, {
        method: 'POST',
        headers: {
          ...signedHeaders(`msg_${randomUUID()}`, at, body, [validator.secret]),
          'user-agent': 'realtime-config-validation',
        },
        body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const text = await readSome(response.body);
      const { statusCode } = response;
      if (statusCode >= 200 && statusCode < 300) return answer(true, statusCode, text);
      return answer(false, statusCode, text.trim() === '' ? `HTTP ${statusCode}` : text);
    } catch (error) {
      return answer(false, null, reasonOf(error, this.timeoutMs));
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/** The start of an answer's body as text; the rest is not read. */
async function readSome(body: AsyncIterable<unknown> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let read = 0;
  for await (const chunk of body) {
    chunks.push(chunk as Buffer);
    read += (chunk as Buffer).length;
    if (read >= READ_BYTES) break;
  }
  body.destroy();
  return Buffer.concat(chunks).toString('utf8');
}

import { startHttpReceiver, type ReceivedRequest, type Reply } from './http-receiver.js';

/** One request a validator got. */
export type ValidationCall = ReceivedRequest;

/** How a validator answers: a status and a body, or 'hang' (no answer until it closes). */
export type Verdict = Reply;

/** A real HTTP server on loopback playing a validator: it records each request and answers as `decide` says. */
export interface ValidatorReceiver {
  readonly url: string;
  readonly calls: ValidationCall[];
  /** Requests held open without an answer right now. */
  readonly hanging: number;
  /** How to answer from now on. */
  decide(decide: (call: ValidationCall) => Verdict | Promise<Verdict>): void;
  close(): Promise<void>;
}

export async function startValidatorReceiver(
  decide: (call: ValidationCall) => Verdict | Promise<Verdict> = () => ({ status: 204 }),
): Promise<ValidatorReceiver> {
  const calls: ValidationCall[] = [];
  let current = decide;
  const receiver = await startHttpReceiver({
    path: '/validate',
    // Always a promise, as before: the verdict may be decided later.
    reply: (call) => {
      calls.push(call);
      return Promise.resolve(current(call));
    },
  });
  return {
    url: receiver.url,
    calls,
    get hanging() {
      return receiver.hanging;
    },
    decide(next) {
      current = next;
    },
    close: () => receiver.close(),
  };
}

import { create, toBinary } from '@bufbuild/protobuf';
import {
  SubscriptionEvent_ConfigEventSchema,
  SubscriptionEventSchema,
  timestampFromMicros,
  type SubscriptionEvent,
} from '../../protocol.js';
import type { Audience, EntryChange } from '../../core/index.js';
import { grpcFrame } from './grpc-message.js';

/**
 * Who an answer is for (core's Audience): callers allowed to read secrets get them; everyone else
 * gets the version without its secret entries (left out, never null). Unreadable secrets are left
 * out for all.
 */
export type { Audience };

export const audienceOf = (withSecrets: boolean): Audience => (withSecrets ? 'secrets' : 'public');

/** Whether a change of an entry reaches an audience. */
export function reaches(change: EntryChange, audience: Audience): boolean {
  if (!change.isSecret) return true;
  return audience === 'secrets' && !change.unreadable;
}

/**
 * Changes on their way to subscribers: built once per change (or burst of changes) and shared by
 * every subscriber of the version. The protobuf message and the gRPC frame are made on first use
 * and then reused, so a change costs one encoding however many streams receive it.
 */
export class EventBatch {
  private messageCache: SubscriptionEvent | undefined;
  private frameCache: Uint8Array | undefined;

  constructor(readonly entries: readonly EntryChange[]) {}

  /** The batch of the changes an audience receives (this one when all of them reach it); null when none does. */
  for(audience: Audience): EventBatch | null {
    const reaching = this.entries.filter((e) => reaches(e, audience));
    if (reaching.length === this.entries.length) return this;
    return reaching.length > 0 ? new EventBatch(reaching) : null;
  }

  get lastTimestamp(): number {
    return this.entries.at(-1)?.timestamp ?? 0;
  }

  message(): SubscriptionEvent {
    this.messageCache ??= create(SubscriptionEventSchema, {
      events: this.entries.map((e) =>
        create(SubscriptionEvent_ConfigEventSchema, {
          key: e.key,
          // Unset (null) means the key was deleted or has no value; "" is a real empty string.
          ...(e.value !== null ? { value: e.value } : {}),
          generation: e.generation,
          timestamp: timestampFromMicros(e.timestamp),
          type: e.valueType,
          // Tells a client to keep it off disk, whatever its own schema declares.
          isSecret: e.isSecret === true,
        }),
      ),
    });
    return this.messageCache;
  }

  /** The gRPC length-prefixed message: flag 0 (not compressed), 4-byte big-endian length, bytes. */
  frame(): Uint8Array {
    this.frameCache ??= grpcFrame(toBinary(SubscriptionEventSchema, this.message()));
    return this.frameCache;
  }
}

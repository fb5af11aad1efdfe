import * as grpc from '@grpc/grpc-js';
import type { GrpcTestClient, Subscription } from './grpc-client.js';
import type { ApiClient } from './test-server.js';

export { movableClock } from './movable-clock.js';

/**
 * FNV-1a 32 over UTF-8 as the rollout hash rule defines it (offset basis 2166136261, prime
 * 16777619, modulo 2^32), written with BigInt arithmetic independently of the server's.
 */
export function referenceFnv1a(text: string): number {
  let hash = 2166136261n;
  for (const byte of new TextEncoder().encode(text)) hash = ((hash ^ BigInt(byte)) * 16777619n) % 2n ** 32n;
  return Number(hash);
}

/** Whether an instance (with the labels the rollout matches) is in a rollout at `percent`, by the rule. */
export const isInRollout = (rolloutId: string, instanceId: string, percent: number): boolean =>
  referenceFnv1a(`${rolloutId}:${instanceId}`) % 10000 < percent * 100;

/** A raw stream of a version that says which instance it is (x-rc-instance-id, x-rc-labels). */
export function instanceStream(
  client: GrpcTestClient,
  target: { serviceId: string; versionId: string },
  instanceId: string,
  labels?: string,
): Subscription {
  const metadata = new grpc.Metadata();
  metadata.set('x-rc-instance-id', instanceId);
  if (labels) metadata.set('x-rc-labels', labels);
  return client.subscribe(target, metadata);
}

/** What a stream received of a key, in order: [value, generation]. */
export const receivedOf = (stream: Subscription, key: string): Array<[string | null, number]> =>
  stream.configEvents.filter((e) => e.key === key).map((e) => [e.value ?? null, Number(e.generation)]);

/** Polls a rollout until `check` holds (the scheduler moves it on its tick). */
export async function untilRollout<T extends { status: string; step: number }>(
  admin: ApiClient,
  url: string,
  check: (rollout: T) => boolean,
): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const rollout = (await admin.get(url)).body as T;
    if (check(rollout)) return rollout;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the rollout never reached the state: ${JSON.stringify((await admin.get(url)).body)}`);
}

/**
 * The Redis pub/sub baseline of the realtime benchmarks (hot-path.ts, sdk.ts, targeting.ts): the
 * driver's connection to the local Redis (BENCH_REDIS_URL, 127.0.0.1:6379 by default), one change
 * as SET + PUBLISH in one MULTI, the channel redis-worker.ts subscribes to, and room for as many
 * subscribers as a run opens.
 */
import { Redis } from 'ioredis';

/** The channel the drivers publish to and redis-worker.ts subscribes to. */
export const REDIS_CHANNEL = 'rc-bench:changes';

export const redisUrl = (): string => process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A connection to Redis at `url`, or null when nothing answers there. */
export async function connectRedis(url: string): Promise<Redis | null> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch {
    redis.disconnect();
    return null;
  }
}

/** One change as the baseline makes it: SET of the value and PUBLISH of it, one MULTI. */
export async function publishChange(redis: Redis, value: string): Promise<void> {
  await redis.multi().set('rc-bench:value', value).publish(REDIS_CHANNEL, value).exec();
}

/** The pid of redis-server (INFO server), for its RSS and CPU time. */
export async function redisPid(redis: Redis): Promise<number> {
  return Number(/process_id:(\d+)/.exec((await redis.info('server')) ?? '')?.[1] ?? Number.NaN);
}

/**
 * Redis refuses clients beyond `maxclients` (10,000 by default): raised for the run when the
 * subscribers would not fit, and put back afterwards.
 */
export async function roomForClients(redis: Redis, subscribers: number): Promise<(() => Promise<void>) | undefined> {
  const [, current = '0'] = (await redis.config('GET', 'maxclients')) as string[];
  if (Number(current) >= subscribers + 100) return undefined;
  await redis.config('SET', 'maxclients', String(subscribers + 100));
  return async () => void (await redis.config('SET', 'maxclients', current));
}

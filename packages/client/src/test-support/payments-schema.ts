import { z } from 'zod';
import { array, boolean, dateTime, defineConfig, enumOf, group, json, number, string, timeSpan } from '../index.js';

/** A schema with every builder, a nested group and a Standard Schema (zod) JSON value. */
export const paymentsSchema = defineConfig({
  Payments: group(
    { description: 'Payment gateway' },
    {
      Provider: string({ default: 'Stripe', description: 'Gateway name' }),
      TimeoutSeconds: number({ default: 30 }),
      Mode: enumOf(['Live', 'Test'] as const, { default: 'Test' }),
      Enabled: boolean({ default: true }),
      Window: timeSpan({ default: '00:05:00' }),
      StartsAt: dateTime(),
      Retries: array<number>({ default: [1, 2] }),
      Limits: json<{ max: number }>({ default: { max: 1 } }),
      Retry: group({ description: 'Retry policy' }, { Attempts: number({ default: 3 }) }),
    },
  ),
  Features: group({
    Checks: json(z.object({ level: z.number().int().min(0) }), { default: { level: 1 } }),
    Hosts: array(z.string().min(1)),
  }),
});

export type PaymentsSchema = typeof paymentsSchema;

// @ts-check
// A Node application that declares its configuration, prints it, and prints every live change.
//
//   npm run build                                    # once, from the repository root
//   RC_SERVICE_ID=<service id> node examples/node-app/main.mjs
//
// Environment: RC_URL (default http://localhost:8080), RC_SERVICE_ID (required), RC_VERSION
// (default 1.0.0), RC_API_KEY (when the server sets Grpc:RequireAuthentication), RC_CACHE_FILE.
import { connect, defineConfig, enumOf, group, json, number, string, timeSpan } from '@realtime-config/client';

const schema = defineConfig({
  Payments: group(
    { description: 'Payment gateway' },
    {
      Provider: string({ default: 'Stripe', description: 'Gateway name' }),
      TimeoutSeconds: number({ default: 30 }),
      Mode: enumOf(['Live', 'Test'], { default: 'Test' }),
      Window: timeSpan({ default: '00:05:00' }),
      Limits: json({ default: { max: 1 } }),
    },
  ),
});

const serviceId = process.env.RC_SERVICE_ID;
if (!serviceId) {
  console.error('Set RC_SERVICE_ID to the id of a service (create one in the web UI or with POST /api/services).');
  process.exit(2);
}

const config = await connect({
  url: process.env.RC_URL ?? 'http://localhost:8080',
  serviceId,
  version: process.env.RC_VERSION ?? '1.0.0',
  schema,
  apiKey: process.env.RC_API_KEY,
  cacheFile: process.env.RC_CACHE_FILE,
});

console.log(`configuration (${config.status}, version ${config.versionId}):`);
console.log(JSON.stringify(config.values, null, 2));
config.subscribe((_values, changes) => {
  for (const { key, oldValue, newValue } of changes) {
    console.log(`changed ${key}: ${JSON.stringify(oldValue)} → ${JSON.stringify(newValue)}`);
  }
});
config.on('status', (status) => console.log(`status: ${status}`));
config.on('error', (error) => console.log(`problem (${error.code}): ${error.message}`));

for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.once(signal, () => void config.close());
}

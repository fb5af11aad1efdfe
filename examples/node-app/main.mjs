// @ts-check
// A Node application that declares its configuration, prints it, and prints every live change.
//
//   npm run build                                    # once, from the repository root
//   RC_SERVICE_ID=<service id> node examples/node-app/main.mjs
//
// Environment: RC_URL (default http://localhost:8080), RC_SERVICE_ID (required), RC_VERSION
// (default 1.0.0), RC_API_KEY (when the server sets Grpc:RequireAuthentication), RC_CACHE_FILE.
import {
  ConfigError,
  connect,
  defineConfig,
  enumOf,
  group,
  json,
  number,
  string,
  timeSpan,
} from '@realtime-config/client';

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

const url = process.env.RC_URL ?? 'http://localhost:8080';
/** What each refusal the SDK reports (its ConfigError codes) means here, and what to do. */
const advice = {
  UNAUTHENTICATED: 'the server wants an API key: set RC_API_KEY to a key of the service (console: its API keys tab)',
  PERMISSION_DENIED: 'RC_API_KEY is not a key of this service, or lacks the scopes read and register',
  NOT_FOUND: 'RC_SERVICE_ID is not the id of a service on this server',
  UNAVAILABLE: 'no server answers there (set RC_URL), and no cache file (RC_CACHE_FILE) to start from',
};

let config;
try {
  config = await connect({
    url,
    serviceId,
    version: process.env.RC_VERSION ?? '1.0.0',
    schema,
    apiKey: process.env.RC_API_KEY,
    cacheFile: process.env.RC_CACHE_FILE,
  });
} catch (error) {
  // One line that says what to do, not a stack trace: a refusal is the server's answer, not a bug.
  if (!(error instanceof ConfigError)) throw error;
  const why = advice[/** @type {keyof typeof advice} */ (error.code)] ?? error.message.split('\n')[0];
  console.error(`Cannot connect to ${url} (${error.code}): ${why}.`);
  process.exit(1);
}

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

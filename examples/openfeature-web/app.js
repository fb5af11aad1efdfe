// @ts-check
// A page that reads one flag with the official OFREP web provider, unchanged, from a Realtime Config
// server whose Ofrep:AllowedOrigins names this page's origin. Settings come from the query string:
// ?server=http://localhost:8080&apiKey=rck_…&version=1.0.0&flag=Payments:Provider&type=string&poll=30000
// (`type`: the flag's OpenFeature type — string, number, boolean or object; a flag of another type
// answers TYPE_MISMATCH and the page shows its default).
import { OFREPWebProvider } from '@openfeature/ofrep-web-provider';
import { OpenFeature, ProviderEvents } from '@openfeature/web-sdk';

const settings = new URLSearchParams(location.search);
const server = settings.get('server') ?? 'http://localhost:8080';
const flag = settings.get('flag') ?? 'Payments:Provider';
const type = settings.get('type') ?? 'string';
const valueOutput = /** @type {HTMLOutputElement} */ (document.getElementById('value'));
const statusOutput = /** @type {HTMLOutputElement} */ (document.getElementById('status'));

const provider = new OFREPWebProvider({
  baseUrl: server,
  headers: [
    // A key with the read scope only, of a service whose flags may be public: the page shows it.
    ['Authorization', `Bearer ${settings.get('apiKey') ?? ''}`],
    ['x-rc-version', settings.get('version') ?? '1.0.0'],
  ],
  // The web provider polls the bulk endpoint (with If-None-Match: unchanged flags cost a 304).
  pollInterval: Number(settings.get('poll') ?? 30_000),
});

const client = OpenFeature.getClient();
/** The flag's details by its type, with a default shown when the flag cannot be read. */
const read = () => {
  switch (type) {
    case 'number':
      return client.getNumberDetails(flag, 0);
    case 'boolean':
      return client.getBooleanDetails(flag, false);
    case 'object':
      return client.getObjectDetails(flag, {});
    default:
      return client.getStringDetails(flag, '(default)');
  }
};
/** @type {HTMLElement} */ (document.getElementById('flag')).textContent = flag;
const show = () => {
  const details = read();
  valueOutput.value = typeof details.value === 'string' ? details.value : JSON.stringify(details.value);
  statusOutput.value = details.errorCode ? `error: ${details.errorCode}` : `${details.reason}`;
};
client.addHandler(ProviderEvents.Ready, show);
client.addHandler(ProviderEvents.ConfigurationChanged, show);
client.addHandler(ProviderEvents.Error, () => (statusOutput.value = 'error'));

// Every visitor is a context: targetingKey plays the instance id that targeting sees (overrides by label).
await OpenFeature.setContext({ targetingKey: settings.get('visitor') ?? crypto.randomUUID() });
await OpenFeature.setProviderAndWait(provider);
show();

import { hostname } from 'node:os';
import { SDK_VERSION } from './sdk-version.js';

/** What the SDK says of itself on every call, so the server can list it among a version's instances. */
export const SDK_NAME = `@realtime-config/client/${SDK_VERSION}`;

/** The default `instanceId`: host name and process id, stable for the life of the process. */
export function defaultInstanceId(): string {
  return `${hostname()}:${process.pid}`;
}

/** `k=v,k2=v2`, keys and values percent-encoded (`%`, `,`, `=` and anything a header cannot carry). */
export function encodeLabels(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join(',');
}

/** The x-rc-* request headers of an instance. */
export function metadataHeaders(instanceId: string, labels: Readonly<Record<string, string>>): Record<string, string> {
  const headers: Record<string, string> = { 'x-rc-instance-id': instanceId, 'x-rc-sdk': SDK_NAME };
  const encoded = encodeLabels(labels);
  if (encoded !== '') headers['x-rc-labels'] = encoded;
  return headers;
}

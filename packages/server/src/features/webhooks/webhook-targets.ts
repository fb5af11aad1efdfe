import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../../platform/errors.js';

/**
 * Where webhooks may send: an http(s) URL whose host is a public address. Loopback, private,
 * link-local, unspecified and every other special-purpose range (carrier-grade NAT, multicast, the
 * IPv6 forms that embed an IPv4 address …) are refused unless Webhooks:AllowPrivateNetworks is on.
 * IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry; decimal, octal and hex forms
 * of an IPv4 address are normalised by the URL parser (and by the resolver) before they are judged.
 * Checked when a webhook is saved, and again at every delivery on the addresses DNS answers then,
 * the connection going to the address that was checked (no second resolution to rebind).
 */

/** Why an address may not be a webhook target, or null when it may. */
export function refusedAddress(address: string): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const range = ipaddr.process(address).range();
  return range === 'unicast' ? null : `${address} is a ${range} address`;
}

/** The URL's host without the brackets of an IPv6 literal. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

const MAX_URL_LENGTH = 2048;

/** A URL as webhooks accept it, or the reason it is refused (for `errors.url`). */
export function parseTargetUrl(text: string): URL | string {
  if (text.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.hostname === '') return 'must name a host';
  return url;
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });
}

/**
 * Checks a webhook's URL when it is saved: 400 with `errors.url` for a URL that is not http(s), a
 * host that does not resolve, or one that resolves to an address webhooks may not reach.
 */
export async function requireAllowedTarget(text: string, allowPrivateNetworks: boolean): Promise<string> {
  const refuse = (reason: string): never => {
    throw AppError.invalid(`The webhook URL ${reason}.`, { url: [reason] });
  };
  const url = parseTargetUrl(text);
  if (typeof url === 'string') return refuse(url);
  // Kept as written (the receiver's own spelling); the checks are on the parsed form.
  if (allowPrivateNetworks) return text;
  const host = hostOf(url);
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = (await resolveAll(host)).map((a) => a.address);
    } catch {
      return refuse(`host ${host} cannot be resolved`);
    }
  }
  for (const address of addresses) {
    const reason = refusedAddress(address);
    if (reason !== null) refuse(`points to a private or reserved network (${host}: ${reason})`);
  }
  return text;
}

/** Refuses a delivery to an IP-literal host before connecting (a literal is never looked up). */
export function refusedLiteralHost(url: URL): string | null {
  const host = hostOf(url);
  if (isIP(host) === 0) return null;
  const reason = refusedAddress(host);
  return reason === null ? null : `refused: ${reason}`;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * `lookup` for the sockets of deliveries: resolves the host, refuses the connection when any answer
 * is not a public address, and otherwise hands exactly the checked addresses to the socket.
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.map((a) => refusedAddress(a.address)).find((reason) => reason !== null);
    if (refused) {
      const failure: NodeJS.ErrnoException = new Error(`refused: ${hostname} resolves to ${refused}`);
      failure.code = 'EWEBHOOKTARGET';
      return callback(failure, []);
    }
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    if (options.all) return callback(null, addresses);
    callback(null, first.address, first.family);
  });
}

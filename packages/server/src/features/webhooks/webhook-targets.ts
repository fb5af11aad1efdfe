import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../../platform/errors.js';

/**
 * Where webhooks may send: an http(s) URL whose host is a public address. Loopback, private,
 * link-local, unspecified and every other special-purpose range (carrier-grade NAT, multicast,
 * Teredo …) are refused unless Webhooks:AllowPrivateNetworks is on. An IPv6 address that carries an
 * IPv4 address (below) is judged as the IPv4 address it carries: through a translator or a relay
 * that is where the connection ends up. Decimal, octal and hex forms of an IPv4 address are
 * normalised by the URL parser (and by the resolver) before they are judged.
 * Checked when a webhook is saved, and again at every delivery on the addresses DNS answers then,
 * the connection going to the address that was checked (no second resolution to rebind).
 */

/** The IPv6 forms that embed an IPv4 address: the prefix, and where the four bytes are. */
const EMBEDDING: ReadonlyArray<{ name: string; prefix: [ipaddr.IPv6, number]; at: number }> = [
  { name: 'IPv4-mapped', prefix: ipaddr.IPv6.parseCIDR('::ffff:0:0/96'), at: 12 },
  // SIIT (RFC 6145)
  { name: 'IPv4-translated', prefix: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), at: 12 },
  // Deprecated (RFC 4291), but still an IPv4 address to some stacks; :: and ::1 are judged as themselves.
  { name: 'IPv4-compatible', prefix: ipaddr.IPv6.parseCIDR('::/96'), at: 12 },
  // The well-known NAT64 prefix (RFC 6052). The local-use 64:ff9b:1::/48 stays refused as a whole:
  // where it carries the address depends on the network's own prefix length.
  { name: 'NAT64', prefix: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), at: 12 },
  { name: '6to4', prefix: ipaddr.IPv6.parseCIDR('2002::/16'), at: 2 },
];

/** The IPv4 address an IPv6 address carries, with the name of its form; undefined for none. */
function embeddedIPv4(address: ipaddr.IPv6): { name: string; ipv4: ipaddr.IPv4 } | undefined {
  const range = address.range();
  if (range === 'unspecified' || range === 'loopback') return undefined;
  const form = EMBEDDING.find(({ prefix }) => address.match(prefix));
  if (!form) return undefined;
  const bytes = address.toByteArray().slice(form.at, form.at + 4);
  return { name: form.name, ipv4: ipaddr.fromByteArray(bytes) as ipaddr.IPv4 };
}

/**
 * An IP address as ipaddr.js should read it. An IPv6 address goes through the URL standard's
 * spelling first (hex only, no zone): ipaddr.js would read the IPv4-compatible `::a.b.c.d`, as the
 * resolver may spell it, as IPv4-mapped `::ffff:a.b.c.d`.
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const family = isIP(address);
  if (family === 4) return ipaddr.IPv4.parse(address);
  if (family !== 6) return undefined;
  const hex = new URL(`http://[${address.replace(/%.*$/, '')}]`).hostname.slice(1, -1);
  return ipaddr.IPv6.parse(hex);
}

/** Why an address may not be a webhook target, or null when it may. */
export function refusedAddress(address: string): string | null {
  const parsed = parseAddress(address);
  if (!parsed) return `${address} is not an IP address`;
  if (parsed.kind() === 'ipv6') {
    const embedded = embeddedIPv4(parsed as ipaddr.IPv6);
    if (embedded) {
      const range = embedded.ipv4.range();
      return range === 'unicast'
        ? null
        : `${address} is ${embedded.name} for ${embedded.ipv4.toString()}, a ${range} address`;
    }
  }
  const range = parsed.range();
  return range === 'unicast' ? null : `${address} is a ${range} address`;
}

/**
 * What to do about a refused private address, said in the refusal: a receiver on the operator's own
 * network (a test setup, an internal chat bridge) is a deliberate choice, made in the configuration.
 */
const PRIVATE_NETWORKS_HINT =
  ' Webhooks are refused on loopback, private and reserved networks unless the server sets Webhooks:AllowPrivateNetworks=true (docs/webhooks.md), for receivers on your own network.';

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
 * host that does not resolve, or one that resolves to an address webhooks may not reach. Validators
 * (features/validators) are held to the same rules; `what` names the kind of target in the message.
 */
export async function requireAllowedTarget(
  text: string,
  allowPrivateNetworks: boolean,
  what: 'webhook' | 'validator' = 'webhook',
): Promise<string> {
  const refuse = (reason: string, hint = ''): never => {
    throw AppError.invalid(`The ${what} URL ${reason}.${hint}`, { url: [reason] });
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
    if (reason !== null) refuse(`points to a private or reserved network (${host}: ${reason})`, PRIVATE_NETWORKS_HINT);
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

/**
 * Of a receiver's URL, what an audit record shows: only its origin (the path or query of some
 * receivers' URLs carries a token, and the audit log has more readers than the receivers' owners).
 */
export function auditedOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

import { AppError } from '../../platform/errors.js';

/** Where a stream comes from: its connection and the connection's peer address. */
export interface StreamOrigin {
  /** The HTTP/2 session carrying the stream, or the socket of an HTTP/1.1 connection (gRPC-Web). */
  readonly connection: object | null;
  /** The socket's peer address (an IPv4 peer of a dual-stack socket as plain IPv4); null when unknown. */
  readonly address: string | null;
}

/** `::ffff:127.0.0.1` (an IPv4 peer of a dual-stack socket) as `127.0.0.1`. */
export function plainAddress(address: string | undefined | null): string | null {
  if (!address) return null;
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice('::ffff:'.length) : address;
}

/**
 * The origin of a stream: its connection (an HTTP/2 session, or an HTTP/1.1 socket) and the socket's
 * peer address. No proxy is believed for gRPC (Server:TrustProxy applies to REST only), so behind a
 * proxy every stream comes from the proxy's address (docs/configuration.md, Stream limits).
 */
export function streamOriginOf(connection: object | undefined, remoteAddress: string | undefined): StreamOrigin {
  return { connection: connection ?? null, address: plainAddress(remoteAddress) };
}

export interface StreamLimits {
  /** Server:MaxStreams: open streams at most; streams without credentials hold at most half of them. */
  readonly maxStreams: number;
  /** Server:MaxStreamsPerConnection; 0 for no limit. */
  readonly perConnection: number;
  /** Server:MaxStreamsPerAddress; 0 for no limit. */
  readonly perAddress: number;
}

/** Which cap refused a stream (the label of realtime_streams_refused_total). */
export type RefusalReason = 'max-streams' | 'anonymous' | 'per-address' | 'per-connection';

/** A stream's place; `release` gives it back (idempotent). */
export interface AdmissionTicket {
  release(): void;
}

/** Wait a refused client is asked for: a few seconds, spread so the refused do not come back together. */
function retryAfterMs(): number {
  return Math.round(2000 + Math.random() * 3000);
}

const NO_LIMIT = Infinity;
const limitOf = (n: number): number => (n > 0 ? n : NO_LIMIT);

/**
 * The one admission rule for change streams of every protocol (docs/grpc.md, Stream limits): at most
 * Server:MaxStreams open, of which streams without credentials hold at most half; at most
 * Server:MaxStreamsPerConnection on one connection and Server:MaxStreamsPerAddress from one peer
 * address. A flood from one address, or of anonymous streams, thus fills its own share and never the
 * room authenticated SDKs find. A stream beyond any cap is refused with RESOURCE_EXHAUSTED and a
 * retry-after; the streams already open are not disturbed.
 */
export class StreamAdmission {
  private open_ = 0;
  private anonymous_ = 0;
  private readonly byConnection = new Map<object, number>();
  private readonly byAddress = new Map<string, number>();
  private readonly maxStreams: number;
  private readonly maxAnonymous: number;
  private readonly perConnection: number;
  private readonly perAddress: number;

  constructor(
    limits: StreamLimits,
    private readonly onRefused: (reason: RefusalReason) => void = () => undefined,
  ) {
    this.maxStreams = limits.maxStreams;
    this.maxAnonymous = Math.floor(limits.maxStreams / 2);
    this.perConnection = limitOf(limits.perConnection);
    this.perAddress = limitOf(limits.perAddress);
  }

  /** Open streams. */
  get count(): number {
    return this.open_;
  }

  /**
   * Takes a place for a new stream, or throws RESOURCE_EXHAUSTED (with `retryAfterMs`) when a cap
   * is reached. `anonymous`: the stream presented no credentials that name a caller.
   */
  admit(origin: StreamOrigin | undefined, anonymous: boolean): AdmissionTicket {
    const connection = origin?.connection ?? null;
    const address = origin?.address ?? null;
    const reason = this.refusal(connection, address, anonymous);
    if (reason) {
      this.onRefused(reason);
      throw new AppError('RESOURCE_EXHAUSTED', this.messageOf(reason), undefined, {
        metadata: { retryAfterMs: retryAfterMs() },
      });
    }
    this.open_++;
    if (anonymous) this.anonymous_++;
    if (connection) this.byConnection.set(connection, (this.byConnection.get(connection) ?? 0) + 1);
    if (address !== null) this.byAddress.set(address, (this.byAddress.get(address) ?? 0) + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.open_--;
        if (anonymous) this.anonymous_--;
        if (connection) decrement(this.byConnection, connection);
        if (address !== null) decrement(this.byAddress, address);
      },
    };
  }

  private refusal(connection: object | null, address: string | null, anonymous: boolean): RefusalReason | null {
    if (this.open_ >= this.maxStreams) return 'max-streams';
    if (anonymous && this.anonymous_ >= this.maxAnonymous) return 'anonymous';
    if (address !== null && (this.byAddress.get(address) ?? 0) >= this.perAddress) return 'per-address';
    if (connection && (this.byConnection.get(connection) ?? 0) >= this.perConnection) return 'per-connection';
    return null;
  }

  private messageOf(reason: RefusalReason): string {
    switch (reason) {
      case 'max-streams':
        return `This server holds its limit of ${this.maxStreams} change streams; retry after retry-after-ms.`;
      case 'anonymous':
        return `This server holds its limit of ${this.maxAnonymous} change streams without credentials; retry after retry-after-ms, or present an API key or token.`;
      case 'per-address':
        return `This address holds its limit of ${this.perAddress} change streams on this server; retry after retry-after-ms.`;
      case 'per-connection':
        return `This connection holds its limit of ${this.perConnection} change streams; retry after retry-after-ms or open another connection.`;
    }
  }
}

/** Counts down; a key whose count reaches 0 is removed, so the maps hold only what is open. */
function decrement<K>(counts: Map<K, number>, key: K): void {
  const left = (counts.get(key) ?? 0) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}

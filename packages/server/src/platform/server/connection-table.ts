import type http2 from 'node:http2';
import type net from 'node:net';
import type tls from 'node:tls';
import { RateLimitedWarning, type WarnLogger } from './rate-limited-warning.js';

/** Why the listener closed or refused a connection of its own accord. */
export type ShedReason = 'idle-timeout' | 'max-connections' | 'max-connections-per-address';
type LimitReason = Exclude<ShedReason, 'idle-timeout'>;
export interface ShedEvent {
  /** `evicted`: an open connection was closed; `refused`: a new one was closed at once. */
  readonly action: 'evicted' | 'refused';
  readonly reason: ShedReason;
}

export interface ConnectionTableOptions {
  readonly maxConnections: number;
  /** 0: no per-address limit. */
  readonly maxConnectionsPerAddress: number;
  readonly idleTimeoutMs: number;
  readonly onShed?: (event: ShedEvent) => void;
  readonly logger?: WarnLogger;
}

/** What identifies a TCP connection on the raw socket, its TLS socket and its HTTP/2 session's socket alike. */
interface Endpoints {
  readonly remoteAddress?: string | undefined;
  readonly remotePort?: number | undefined;
  readonly localAddress?: string | undefined;
  readonly localPort?: number | undefined;
}

const keyOf = (s: Endpoints): string => `${s.remoteAddress}|${s.remotePort}|${s.localAddress}|${s.localPort}`;

// An evicted HTTP/2 session gets this long to flush its GOAWAY before its socket is destroyed (a peer
// that stopped reading would otherwise hold it).
const EVICTION_GRACE_MS = 1000;
const WARNING_INTERVAL_MS = 10_000;

interface Connection {
  readonly socket: net.Socket;
  readonly address: string;
  readonly key: string;
  /** Classified and, for TLS, through the handshake. */
  established: boolean;
  /** Open HTTP/2 streams, or HTTP/1.1 requests being answered. */
  busy: number;
  idleSince: number;
  session: http2.Http2Session | null;
  tlsSocket: tls.TLSSocket | null;
  /** Evicted, or closed: no longer counted against any cap. */
  released: boolean;
}

/**
 * Every open connection of the one-port listener, with what it is doing, for three rules:
 *
 * - an established connection with nothing in progress (an HTTP/2 session without an open stream, an
 *   HTTP/1.1 connection between requests) for `idleTimeoutMs` is closed, HTTP/2 with GOAWAY; a
 *   stream open for however long (StartSubscribe) keeps its connection;
 * - at `maxConnections` a new connection evicts the one idle the longest (an established one first,
 *   then one that has not finished saying what it speaks), and is refused only when none is idle;
 * - at `maxConnectionsPerAddress` (when set) the same, among the connections of that address.
 *
 * `maxConnections` sits below the open-file limit, so the descriptor the new connection needs to be
 * accepted, and to evict, is always there: at the limit itself accept() fails and nobody gets in.
 */
export class ConnectionTable {
  private readonly byKey = new Map<string, Connection>();
  private readonly bySession = new WeakMap<http2.Http2Session, Connection>();
  private readonly byAddress = new Map<string, Set<Connection>>();
  /** Established and idle, longest idle first (a Set iterates in insertion order). */
  private readonly idle = new Set<Connection>();
  /** Not yet established, oldest first. */
  private readonly fresh = new Set<Connection>();
  /** Admitted and neither evicted nor closed. */
  private counted = 0;
  private readonly sweepTimer: NodeJS.Timeout;
  private readonly warnings: Record<LimitReason, Record<ShedEvent['action'], RateLimitedWarning>>;

  constructor(private readonly options: ConnectionTableOptions) {
    const { logger, maxConnections, maxConnectionsPerAddress } = options;
    const warning = (message: string) => new RateLimitedWarning(logger, message, WARNING_INTERVAL_MS);
    const global = `connection limit reached (Server:MaxConnections=${maxConnections})`;
    const perAddress = `connection limit of one address reached (Server:MaxConnectionsPerAddress=${maxConnectionsPerAddress})`;
    this.warnings = {
      'max-connections': {
        evicted: warning(`${global}: closed the longest idle connection to admit a new one`),
        refused: warning(`${global} and no connection is idle: refused a new connection`),
      },
      'max-connections-per-address': {
        evicted: warning(`${perAddress}: closed its longest idle connection to admit a new one`),
        refused: warning(`${perAddress} and none of its connections is idle: refused a new connection`),
      },
    };
    const sweepEveryMs = Math.min(15_000, Math.max(50, Math.floor(options.idleTimeoutMs / 4)));
    this.sweepTimer = setInterval(() => this.closeIdle(), sweepEveryMs);
    this.sweepTimer.unref();
  }

  /** Takes a new connection in, evicting an idle one when a limit is reached; false when it was refused (and destroyed). */
  admit(socket: net.Socket): boolean {
    const address = socket.remoteAddress;
    if (address === undefined) {
      socket.destroy(); // already gone
      return false;
    }
    const { maxConnections, maxConnectionsPerAddress } = this.options;
    if (maxConnectionsPerAddress > 0) {
      const own = this.byAddress.get(address);
      if (own && own.size >= maxConnectionsPerAddress) {
        if (!this.makeRoom(longestIdleOf(own), 'max-connections-per-address', address)) {
          return this.refuse(socket, 'max-connections-per-address', address);
        }
      }
    }
    if (this.counted >= maxConnections && !this.makeRoom(this.longestIdle(), 'max-connections', address)) {
      return this.refuse(socket, 'max-connections', address);
    }

    const conn: Connection = {
      socket,
      address,
      key: keyOf(socket),
      established: false,
      busy: 0,
      idleSince: performance.now(),
      session: null,
      tlsSocket: null,
      released: false,
    };
    this.counted++;
    this.byKey.set(conn.key, conn);
    this.fresh.add(conn);
    if (maxConnectionsPerAddress > 0) {
      const own = this.byAddress.get(address) ?? new Set<Connection>();
      own.add(conn);
      this.byAddress.set(address, own);
    }
    socket.once('close', () => {
      this.byKey.delete(conn.key);
      this.release(conn);
    });
    return true;
  }

  /** The connection has said what it speaks (h2c, HTTP/1.1) or finished its TLS handshake. */
  established(socket: Endpoints, tlsSocket?: tls.TLSSocket): void {
    const conn = this.byKey.get(keyOf(socket));
    if (!conn || conn.released) return;
    conn.established = true;
    if (tlsSocket) conn.tlsSocket = tlsSocket;
    this.fresh.delete(conn);
    if (conn.busy === 0) this.markIdle(conn);
  }

  sessionStarted(session: http2.Http2Session): void {
    // The session's socket is a proxy of the raw (h2c) or TLS socket; its endpoints are theirs.
    const conn = this.byKey.get(keyOf(session.socket));
    if (!conn) return;
    conn.session = session;
    this.bySession.set(session, conn);
  }

  /** An HTTP/2 stream keeps its connection busy until it closes. */
  streamOpened(stream: http2.ServerHttp2Stream): void {
    const conn = stream.session && this.bySession.get(stream.session);
    if (conn) this.busyUntil(conn, stream);
  }

  /** An HTTP/1.1 request keeps its connection busy until its response closes. */
  requestStarted(socket: Endpoints, response: { once(event: 'close', listener: () => void): unknown }): void {
    const conn = this.byKey.get(keyOf(socket));
    if (conn) this.busyUntil(conn, response);
  }

  stop(): void {
    clearInterval(this.sweepTimer);
  }

  private busyUntil(conn: Connection, work: { once(event: 'close', listener: () => void): unknown }): void {
    conn.busy++;
    this.idle.delete(conn);
    work.once('close', () => {
      conn.busy--;
      if (conn.busy === 0 && conn.established && !conn.released) this.markIdle(conn);
    });
  }

  private markIdle(conn: Connection): void {
    conn.idleSince = performance.now();
    this.idle.delete(conn);
    this.idle.add(conn);
  }

  private closeIdle(): void {
    const cutoff = performance.now() - this.options.idleTimeoutMs;
    for (const conn of this.idle) {
      if (conn.idleSince > cutoff) break;
      this.evict(conn, 'idle-timeout');
    }
  }

  private longestIdle(): Connection | undefined {
    for (const conn of this.idle) return conn;
    for (const conn of this.fresh) return conn;
    return undefined;
  }

  private makeRoom(victim: Connection | undefined, reason: LimitReason, address: string): boolean {
    if (!victim) return false;
    this.evict(victim, reason);
    this.warnings[reason].evicted.note({ address, evictedAddress: victim.address });
    return true;
  }

  private refuse(socket: net.Socket, reason: LimitReason, address: string): false {
    socket.destroy();
    this.options.onShed?.({ action: 'refused', reason });
    this.warnings[reason].refused.note({ address });
    return false;
  }

  private evict(conn: Connection, reason: ShedReason): void {
    this.release(conn);
    this.options.onShed?.({ action: 'evicted', reason });
    const { session, socket } = conn;
    const destroy = (): void => {
      conn.tlsSocket?.destroy();
      socket.destroy();
    };
    if (session && !session.destroyed) {
      // GOAWAY; without open streams the session then ends its socket at once.
      session.close();
      const timer = setTimeout(destroy, EVICTION_GRACE_MS);
      timer.unref();
      socket.once('close', () => clearTimeout(timer));
    } else {
      destroy();
    }
  }

  private release(conn: Connection): void {
    if (conn.released) return;
    conn.released = true;
    this.counted--;
    this.idle.delete(conn);
    this.fresh.delete(conn);
    const own = this.byAddress.get(conn.address);
    if (own?.delete(conn) && own.size === 0) this.byAddress.delete(conn.address);
  }
}

/** Among one address's connections: the established one idle the longest, else the oldest not yet established. */
function longestIdleOf(connections: Iterable<Connection>): Connection | undefined {
  let best: Connection | undefined;
  for (const conn of connections) {
    if (conn.busy > 0) continue;
    if (
      !best ||
      (conn.established && !best.established) ||
      (conn.established === best.established && conn.idleSince < best.idleSince)
    ) {
      best = conn;
    }
  }
  return best;
}

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The service's Prometheus metrics, in a registry of its own so several apps can share a process (tests). */
export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  readonly dbQueryDuration: Histogram<'outcome'>;
  readonly grpcCalls: Counter<'method' | 'path'>;
  /** Tells the open-subscriptions gauge where to read its value at scrape time. */
  countOpenSubscriptionsWith(source: () => number): void;
  /** Tells the connected-instances gauge where to read its series (versions with open streams) at scrape time. */
  countConnectedInstancesWith(source: () => Iterable<{ serviceId: string; versionId: string; count: number }>): void;
  readonly eventsDelivered: Counter;
  readonly subscribersDropped: Counter;
  /** New change streams refused at a stream limit, by the limit (see StreamAdmission). */
  readonly streamsRefused: Counter<'reason'>;
  readonly changesReceived: Counter;
  /** Connections the listener closed to make room or because they sat idle, by reason. */
  readonly connectionsEvicted: Counter<'reason'>;
  /** New connections the listener refused at a connection limit, by reason. */
  readonly connectionsRejected: Counter<'reason'>;
  /** Tells the open-connections gauge where to read its value at scrape time. */
  countOpenConnectionsWith(source: () => number): void;
  /** Tells the follower gauges (docs/regions.md) where to read the instance's role and lag at scrape time. */
  followReplicationWith(source: () => { follower: boolean; lagSeconds: number }): void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  let openSubscriptions = (): number => 0;
  let openConnections = (): number => 0;
  let connectedInstances = (): Iterable<{ serviceId: string; versionId: string; count: number }> => [];
  let replication = () => ({ follower: false, lagSeconds: 0 });
  new Gauge({
    name: 'realtime_follower',
    help: 'Whether this instance is a follower (1: its database is a PostgreSQL standby, it writes nothing) or a primary (0)',
    registers: [registry],
    collect() {
      this.set(replication().follower ? 1 : 0);
    },
  });
  new Gauge({
    name: 'realtime_follower_lag_seconds',
    help: "A follower's replication delay: how long the standby's replay has been behind what it received from the primary (0 on a primary)",
    registers: [registry],
    collect() {
      this.set(replication().lagSeconds);
    },
  });
  new Gauge({
    name: 'realtime_connected_instances',
    help: 'StartSubscribe streams open on this instance, by service and version id (a series only while the version has open streams)',
    labelNames: ['service', 'version'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { serviceId, versionId, count } of connectedInstances()) {
        this.set({ service: serviceId, version: versionId }, count);
      }
    },
  });
  new Gauge({
    name: 'realtime_open_connections',
    help: 'TCP connections open on the listener',
    registers: [registry],
    collect() {
      this.set(openConnections());
    },
  });
  new Gauge({
    name: 'realtime_open_subscriptions',
    help: 'StartSubscribe streams open on this instance',
    registers: [registry],
    collect() {
      this.set(openSubscriptions());
    },
  });
  return {
    countOpenSubscriptionsWith(source) {
      openSubscriptions = source;
    },
    countConnectedInstancesWith(source) {
      connectedInstances = source;
    },
    countOpenConnectionsWith(source) {
      openConnections = source;
    },
    followReplicationWith(source) {
      replication = source;
    },
    connectionsEvicted: new Counter({
      name: 'realtime_connections_evicted_total',
      help: 'Connections closed by the listener: idle-timeout, or to admit a new one at max-connections or max-connections-per-address',
      labelNames: ['reason'],
      registers: [registry],
    }),
    connectionsRejected: new Counter({
      name: 'realtime_connections_rejected_total',
      help: 'New connections refused at max-connections or max-connections-per-address because none was idle',
      labelNames: ['reason'],
      registers: [registry],
    }),
    grpcCalls: new Counter({
      name: 'grpc_calls_total',
      help: 'gRPC, gRPC-Web and Connect calls received, by method and serving path (native fast path or connect)',
      labelNames: ['method', 'path'],
      registers: [registry],
    }),
    eventsDelivered: new Counter({
      name: 'realtime_events_delivered_total',
      help: 'Config events written to subscriber streams (one per entry per subscriber)',
      registers: [registry],
    }),
    streamsRefused: new Counter({
      name: 'realtime_streams_refused_total',
      help: 'New change streams refused with RESOURCE_EXHAUSTED at a stream limit, by reason: max-streams, anonymous, per-address, per-connection',
      labelNames: ['reason'],
      registers: [registry],
    }),
    subscribersDropped: new Counter({
      name: 'realtime_subscribers_dropped_total',
      help: 'Subscribers dropped because they stopped reading',
      registers: [registry],
    }),
    changesReceived: new Counter({
      name: 'realtime_changes_received_total',
      help: 'Committed changes received from the change feed',
      registers: [registry],
    }),
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    dbQueryDuration: new Histogram({
      name: 'db_query_duration_seconds',
      help: 'Database query duration',
      labelNames: ['outcome'],
      buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
      registers: [registry],
    }),
  };
}

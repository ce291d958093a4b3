import { collectDefaultMetrics, Counter, Gauge, Registry, type Metric } from 'prom-client';
import { abortedTransactions } from './db/transaction-retry.ts';
import { log } from './log.ts';

export type DeliveryOutcome = 'delivered' | 'failed' | 'retrying';
export type SubscriptionTransport = 'websocket' | 'sse';

/** Pending webhook messages, per environment: all of them, and those due now. */
export type QueueDepth = { livemode: boolean; pending: number; due: number }[];

/**
 * The service's Prometheus metrics (GET /metrics, src/http/observe.ts). Labels are bounded:
 * routes are templates (`/v1/bookings/{id}`), GraphQL is one route (`POST /graphql`; the
 * operation's name is in the access log, not in a label a client could multiply).
 */
export interface Metrics {
  registry: Registry;
  /** One answered HTTP request. */
  request(method: string, route: string, status: number, seconds: number): void;
  /** One webhook delivery attempt, by what followed it. */
  delivery(outcome: DeliveryOutcome): void;
  /** A GraphQL subscription opened; call what it returns once, when it ends. */
  subscriptionOpened(transport: SubscriptionTransport): () => void;
}

/** Latency buckets (seconds): 1 ms to 10 s. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(options: { queueDepth?: () => Promise<QueueDepth> } = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = requestTallies(registry);
  const deliveries = new Counter({ name: 'webhook_delivery_attempts_total', help: 'Webhook delivery attempts of this process, by outcome: delivered (2xx), retrying (another attempt is scheduled), failed (no attempt left).', labelNames: ['outcome'], registers: [registry] });
  for (const outcome of ['delivered', 'retrying', 'failed']) deliveries.labels(outcome).inc(0);
  const subscriptions = new Gauge({ name: 'graphql_subscriptions_open', help: 'GraphQL subscriptions open now, by transport (graphql-ws WebSocket, SSE).', labelNames: ['transport'], registers: [registry] });
  for (const transport of ['websocket', 'sse']) subscriptions.labels(transport).set(0);
  new Counter({
    name: 'database_transactions_aborted_total',
    help: 'Transactions of this process PostgreSQL aborted in favour of a concurrent one, by cause (deadlock, serialization_failure): each was run again, or answered 503 transaction_conflict after its last attempt.',
    labelNames: ['cause'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [cause, count] of Object.entries(abortedTransactions)) this.labels(cause).inc(count);
    },
  });

  if (options.queueDepth) {
    const read = options.queueDepth;
    // Both gauges of a scrape from one query: the first to collect reads, the second takes that reading.
    let reading: Promise<QueueDepth | null> | null = null;
    const depth = () => {
      if (reading) {
        const shared = reading;
        reading = null;
        return shared;
      }
      reading = read().catch((err) => {
        log.warn({ err: (err as Error).message }, 'metrics: webhook queue depth not read');
        return null;
      });
      return reading;
    };
    const gauge = (name: string, help: string, pick: (row: QueueDepth[number]) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['livemode'],
        registers: [registry],
        async collect() {
          const rows = await depth();
          if (!rows) return;
          this.reset();
          for (const livemode of [false, true]) {
            const row = rows.find((r) => r.livemode === livemode);
            this.labels(String(livemode)).set(row ? pick(row) : 0);
          }
        },
      });
    gauge('webhook_queue_pending', 'Webhook messages not delivered yet and not given up (waiting for an attempt, a retry, or an answer), by environment.', (r) => r.pending);
    gauge('webhook_queue_due', 'Pending webhook messages whose next attempt is due now (a backlog when it stays high), by environment.', (r) => r.due);
  }

  return {
    registry,
    request: requests.observe,
    delivery(outcome) {
      deliveries.labels(outcome).inc();
    },
    subscriptionOpened(transport) {
      const gauge = subscriptions.labels(transport);
      gauge.inc();
      let open = true;
      return () => {
        if (!open) return;
        open = false;
        gauge.dec();
      };
    },
  };
}

type RequestLabels = { method: string; route: string; status: string };
interface RequestTally {
  labels: RequestLabels;
  count: number;
  sum: number;
  /** Requests per bucket of BUCKETS (not cumulative); those above the last are counted in `count` only. */
  buckets: number[];
}

/**
 * http_requests_total and http_request_duration_seconds: a request adds to plain numbers (one
 * map lookup, two increments), and a scrape hands them to the registry in prom-client's own
 * shape (the same text as its Counter and Histogram write). prom-client's own `observe` hashes
 * the labels on every call, a cost paid on every request for what is read once a scrape.
 */
function requestTallies(registry: Registry) {
  const tallies = new Map<string, RequestTally>();
  const countName = 'http_requests_total';
  const timeName = 'http_request_duration_seconds';
  const counter = {
    name: countName,
    help: 'HTTP requests answered, by method, route template and status.',
    type: 'counter',
    aggregator: 'sum',
    async get() {
      return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: [...tallies.values()].map((t) => ({ labels: t.labels, value: t.count })) };
    },
  };
  const histogram = {
    name: timeName,
    help: 'Time from the request to the end of its answer, by method, route template and status.',
    type: 'histogram',
    aggregator: 'sum',
    async get() {
      const values = [...tallies.values()].flatMap((t) => {
        let cumulative = 0;
        return [
          ...BUCKETS.map((le, i) => ({ labels: { le }, sharedLabels: t.labels, value: (cumulative += t.buckets[i]), metricName: `${timeName}_bucket` })),
          { labels: { le: '+Inf' }, sharedLabels: t.labels, value: t.count, metricName: `${timeName}_bucket` },
          { labels: {}, sharedLabels: t.labels, value: t.sum, metricName: `${timeName}_sum` },
          { labels: {}, sharedLabels: t.labels, value: t.count, metricName: `${timeName}_count` },
        ];
      });
      return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
    },
  };
  registry.registerMetric(counter as unknown as Metric);
  registry.registerMetric(histogram as unknown as Metric);
  return {
    observe(method: string, route: string, status: number, seconds: number): void {
      const key = `${method} ${route} ${status}`;
      let tally = tallies.get(key);
      if (!tally) tallies.set(key, (tally = { labels: { method, route, status: String(status) }, count: 0, sum: 0, buckets: BUCKETS.map(() => 0) }));
      tally.count++;
      tally.sum += seconds;
      for (let i = 0; i < BUCKETS.length; i++) {
        if (seconds <= BUCKETS[i]) {
          tally.buckets[i]++;
          break;
        }
      }
    },
  };
}

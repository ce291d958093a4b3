import { gql, NO_ACCESS, type OpsSession } from './api.ts';

/** What the board shows of a booking. */
export interface BookingRow {
  id: string;
  state: string;
  startAt: string;
  endAt: string;
  vehicle: { name: string };
  customer: { name: string | null };
}
export interface DisputeRow {
  id: string;
  state: string;
  reason: string | null;
  bookingId: string | null;
  createdAt: string;
}
export interface FailingEndpoint {
  id: string;
  url: string;
  enabled: boolean;
  delivery: { id: string; eventType: string; responseStatus: number | null; error: string | null; attempt: number; createdAt: string; nextRetryAt: string | null };
}

/** A section's data, or NO_ACCESS when the member's role may not read it. */
export type Section<T> = T | typeof NO_ACCESS;

export interface Board {
  today: Section<{ pickups: BookingRow[]; returns: BookingRow[] }>;
  byState: Section<{ state: string; count: number; more: boolean }[]>;
  late: Section<BookingRow[]>;
  problem: Section<BookingRow[]>;
  disputes: Section<DisputeRow[]>;
  webhooks: Section<FailingEndpoint[]>;
  money: Section<{ currency: string; grossCents: number; refundsCents: number; netCents: number }>;
  apps: Section<ConnectedAppRow[]>;
}

/** An OAuth app connected to the business (GET /v1/connected_apps). */
export interface ConnectedAppRow {
  id: string;
  appName: string;
  scopes: string[];
  createdAt: string;
}

export const BOOKING_STATES = [
  'pending_payment', 'checkout_started', 'payment_pending', 'booked', 'confirmed', 'ready_for_pickup',
  'active', 'late', 'return_in_review', 'completed', 'canceled', 'refunded', 'problem',
] as const;

/** Counted up to this many per state ("100+" beyond). */
const COUNT_CAP = 100;
const BOOKING = 'id state startAt endAt vehicle { name } customer { name }';
type Conn<T> = { edges: { node: T }[]; pageInfo?: { hasNextPage: boolean } };
const nodes = <T>(c: Conn<T>) => c.edges.map((e) => e.node);

/** Midnight to midnight of the browser's day. */
function today(): { from: string; to: string; start: number; end: number } {
  const start = new Date();
  start.setHours(0, 0, 0, 0);
  const end = new Date(start);
  end.setDate(end.getDate() + 1);
  return { from: start.toISOString(), to: end.toISOString(), start: start.getTime(), end: end.getTime() };
}

const map = <T, R>(s: Section<T>, f: (v: T) => R): Section<R> => (s === NO_ACCESS ? NO_ACCESS : f(s));

async function todaySection(session: OpsSession) {
  const day = today();
  const data = await gql<{ pickups: Conn<BookingRow>; active: Conn<BookingRow>; ready: Conn<BookingRow> }>(session, `query OpsToday($from: DateTime!, $to: DateTime!) {
    pickups: bookings(startAtGte: $from, startAtLt: $to, first: 100) { edges { node { ${BOOKING} } } }
    active: bookings(state: active, first: 100) { edges { node { ${BOOKING} } } }
    ready: bookings(state: ready_for_pickup, first: 100) { edges { node { ${BOOKING} } } }
  }`, { from: day.from, to: day.to });
  return map(data, (d) => {
    const endsToday = (b: BookingRow) => Date.parse(b.endAt) >= day.start && Date.parse(b.endAt) < day.end;
    return {
      pickups: nodes(d.pickups).filter((b) => !['canceled', 'refunded', 'pending_payment', 'checkout_started'].includes(b.state)).sort((a, b) => a.startAt.localeCompare(b.startAt)),
      returns: [...nodes(d.active), ...nodes(d.ready)].filter(endsToday).sort((a, b) => a.endAt.localeCompare(b.endAt)),
    };
  });
}

async function byStateSection(session: OpsSession) {
  // Two documents: each stays within the API's alias limit.
  const halves = [BOOKING_STATES.slice(0, 7), BOOKING_STATES.slice(7)];
  const parts = await Promise.all(halves.map((states) => gql<Record<string, Conn<{ id: string }>>>(session, `query OpsStates {
    ${states.map((s) => `${s}: bookings(state: ${s}, first: ${COUNT_CAP}) { pageInfo { hasNextPage } edges { node { id } } }`).join('\n')}
  }`)));
  if (parts.some((p) => p === NO_ACCESS)) return NO_ACCESS;
  const all = Object.assign({}, ...parts) as Record<string, Conn<{ id: string }>>;
  return BOOKING_STATES.map((state) => ({ state, count: all[state].edges.length, more: all[state].pageInfo?.hasNextPage ?? false }));
}

async function stateList(session: OpsSession, state: 'late' | 'problem') {
  const data = await gql<{ bookings: Conn<BookingRow> }>(session, `query OpsState { bookings(state: ${state}, first: 50) { edges { node { ${BOOKING} } } } }`);
  return map(data, (d) => nodes(d.bookings));
}

async function disputesSection(session: OpsSession) {
  const fields = 'id state reason bookingId createdAt';
  const data = await gql<{ open: Conn<DisputeRow>; review: Conn<DisputeRow> }>(session, `query OpsDisputes {
    open: disputes(state: open, first: 50) { edges { node { ${fields} } } }
    review: disputes(state: under_review, first: 50) { edges { node { ${fields} } } }
  }`);
  return map(data, (d) => [...nodes(d.open), ...nodes(d.review)].sort((a, b) => b.createdAt.localeCompare(a.createdAt)));
}

/** Endpoints whose latest delivery attempt failed (no 2xx answer). */
async function webhooksSection(session: OpsSession): Promise<Section<FailingEndpoint[]>> {
  const list = await gql<{ webhookEndpoints: Conn<{ id: string; url: string; enabled: boolean }> }>(session, 'query OpsEndpoints { webhookEndpoints(first: 50) { edges { node { id url enabled } } } }');
  if (list === NO_ACCESS) return NO_ACCESS;
  const endpoints = nodes(list.webhookEndpoints);
  const failing: FailingEndpoint[] = [];
  await Promise.all(endpoints.map(async (endpoint) => {
    const d = await gql<{ webhookDeliveries: Conn<FailingEndpoint['delivery']> }>(session, `query OpsDeliveries($id: ID!) {
      webhookDeliveries(endpointId: $id, first: 1) { edges { node { id eventType responseStatus error attempt createdAt nextRetryAt } } }
    }`, { id: endpoint.id });
    if (d === NO_ACCESS) return;
    const latest = nodes(d.webhookDeliveries)[0];
    const ok = latest && latest.responseStatus !== null && latest.responseStatus >= 200 && latest.responseStatus < 300;
    if (latest && !ok) failing.push({ ...endpoint, delivery: latest });
  }));
  return failing.sort((a, b) => b.delivery.createdAt.localeCompare(a.delivery.createdAt));
}

/** Money moved today (the revenue report: reports:read). */
async function moneySection(session: OpsSession) {
  const day = today();
  const data = await gql<{ revenueReport: { currency: string; totals: { grossCents: number; refundsCents: number; netCents: number } } }>(session, `query OpsMoney($from: DateTime!, $to: DateTime!) {
    revenueReport(from: $from, to: $to) { currency totals { grossCents refundsCents netCents } }
  }`, { from: day.from, to: day.to });
  return map(data, (d) => ({ currency: d.revenueReport.currency, ...d.revenueReport.totals }));
}

/** The OAuth apps connected to the business (business:read). */
async function appsSection(session: OpsSession): Promise<Section<ConnectedAppRow[]>> {
  const data = await gql<{ connectedApps: Conn<ConnectedAppRow> }>(session, 'query OpsApps { connectedApps(first: 50) { edges { node { id appName scopes createdAt } } } }');
  return map(data, (d) => nodes(d.connectedApps));
}

/** End a connection: the app's tokens stop (business:write). */
export async function disconnectApp(session: OpsSession, id: string) {
  return gql(session, 'mutation OpsDisconnect($id: ID!) { disconnectApp(id: $id) { id } }', { id });
}

/** Every section of the board, read at once; a section the member may not read is NO_ACCESS. */
export async function loadBoard(session: OpsSession): Promise<Board> {
  const [t, byState, late, problem, disputes, webhooks, money, apps] = await Promise.all([
    todaySection(session), byStateSection(session), stateList(session, 'late'), stateList(session, 'problem'), disputesSection(session), webhooksSection(session), moneySection(session),
    appsSection(session),
  ]);
  return { today: t, byState, late, problem, disputes, webhooks, money, apps };
}

/** Retry a failed webhook delivery now (webhooks:write). */
export async function retryDelivery(session: OpsSession, endpointId: string, deliveryId: string) {
  return gql(session, 'mutation OpsRetry($e: ID!, $d: ID!) { retryWebhookDelivery(endpointId: $e, deliveryId: $d) { id } }', { e: endpointId, d: deliveryId });
}

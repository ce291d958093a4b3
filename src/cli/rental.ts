import { parseArgs } from 'node:util';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { presentEvent } from '../domain/events/event.service.ts';
import { EVENT_TYPES } from '../domain/events/event-types.ts';
import { newEndpointSecret, signatureHeaders } from '../domain/webhooks/signing.ts';

/**
 * `npm run cli -- <command>` (or `npx tsx src/cli/rental.ts <command>`): the integrator's
 * command line, talking to the API over HTTP with a secret key, as any client does.
 *
 *   listen --forward-to URL [--events a,b] [--secret whsec_...]
 *   trigger <scenario> [--booking bk_... | --charge ch_...] [--data JSON]
 *   trigger --list
 *
 * Exit codes: 0 done, 1 the API unreachable or an unexpected answer, 2 bad arguments or the
 * API refused the request (4xx).
 */

export const USAGE = `Usage: rental <command> [options]

Commands:
  listen --forward-to URL [--events TYPE,...] [--secret whsec_...]
      Receive the business's events as they happen and POST each to URL, signed as webhooks
      are (webhook-id, webhook-timestamp, webhook-signature) with a signing secret printed at
      start (a new one each session unless --secret). Catches up from GET /v1/events after a
      dropped connection. Stops on Ctrl-C.
  trigger SCENARIO [--booking bk_... | --charge ch_...] [--data JSON]
      Run a sandbox scenario (test keys). A booking scenario without --booking creates a test
      booking first and prints its id. --data adds a JSON body (e.g. {"mileage_in": 1900}).
  trigger --list
      List the scenarios.

Options:
  --api-key KEY   a secret key (default: RENTAL_API_KEY)
  --api-url URL   the API (default: RENTAL_API_URL, else http://127.0.0.1:3000)
  --help`;

const EXIT_OK = 0;
const EXIT_API = 1;
const EXIT_USAGE = 2;

/** The sandbox scenarios by name, and the endpoint each runs. */
export const SCENARIOS: Record<string, { on: 'booking' | 'charge'; path: string; what: string }> = {
  'payment-succeeds': { on: 'booking', path: '/v1/test/bookings/{id}/payment/succeed', what: "the booking's payment succeeds" },
  'payment-fails': { on: 'booking', path: '/v1/test/bookings/{id}/payment/fail', what: "the booking's payment is declined" },
  'identity-verified': { on: 'booking', path: '/v1/test/bookings/{id}/identity/verify', what: "the customer's identity is verified" },
  'deposit-secured': { on: 'booking', path: '/v1/test/bookings/{id}/deposit/secure', what: 'the security deposit is secured' },
  'start-rental': { on: 'booking', path: '/v1/test/bookings/{id}/pickup', what: 'the vehicle is picked up (the rental starts)' },
  'make-rental-late': { on: 'booking', path: '/v1/test/bookings/{id}/make-late', what: 'the rental runs past its end' },
  'submit-return': { on: 'booking', path: '/v1/test/bookings/{id}/return', what: 'the vehicle is returned' },
  'charge-fails': { on: 'charge', path: '/v1/test/charges/{id}/fail', what: "the charge's payment fails" },
  'create-dispute': { on: 'charge', path: '/v1/test/charges/{id}/dispute', what: 'the customer disputes the charge' },
};

export const scenarioList = () => Object.entries(SCENARIOS).map(([name, s]) => `  ${name.padEnd(18)} ${s.what} (${s.on === 'booking' ? '--booking bk_...' : '--charge ch_...'})`).join('\n');

class Failure extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

const usage = (message: string) => new Failure(`${message}\n\n${USAGE}`, EXIT_USAGE);

interface Api {
  url: string;
  key: string;
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

function api(url: string, key: string): Api {
  return {
    url,
    key,
    async request(method, path, body) {
      let res: Response;
      try {
        res = await fetch(url + path, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), 'user-agent': 'rental-cli' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (err) {
        throw new Failure(`The API at ${url} is unreachable: ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}`, EXIT_API);
      }
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: shown as it came
      }
      return { status: res.status, body: parsed };
    },
  };
}

/** An answer the command cannot go on with: 4xx is the caller's (exit 2), anything else unexpected (exit 1). */
function refused(what: string, answer: { status: number; body: any }): Failure {
  const error = answer.body?.error;
  const detail = error ? `${error.code}: ${error.message}` : typeof answer.body === 'string' ? answer.body.slice(0, 200) : JSON.stringify(answer.body);
  return new Failure(`${what}: HTTP ${answer.status} ${detail}`, answer.status >= 400 && answer.status < 500 ? EXIT_USAGE : EXIT_API);
}

// ------------------------------------------------------------------ trigger

async function trigger(client: Api, scenario: string | undefined, options: { booking?: string; charge?: string; data?: string }): Promise<number> {
  if (!scenario) throw usage(`trigger needs a scenario:\n${scenarioList()}`);
  const s = SCENARIOS[scenario];
  if (!s) throw new Failure(`Unknown scenario '${scenario}'. The scenarios:\n${scenarioList()}`, EXIT_USAGE);
  let body: unknown;
  if (options.data !== undefined) {
    try {
      body = JSON.parse(options.data);
    } catch {
      throw usage(`--data must be JSON, got '${options.data}'`);
    }
  }
  let id: string;
  if (s.on === 'charge') {
    if (options.booking) throw usage(`${scenario} runs on a charge: give --charge ch_..., not --booking`);
    if (!options.charge) throw usage(`${scenario} runs on a charge: give --charge ch_... (a booking's charges: GET /v1/bookings/{id}/charges)`);
    id = options.charge;
  } else {
    if (options.charge) throw usage(`${scenario} runs on a booking: give --booking bk_..., not --charge`);
    if (options.booking) id = options.booking;
    else {
      const created = await client.request('POST', '/v1/test/bookings', {});
      if (created.status !== 201) throw refused('Creating a test booking failed', created);
      id = created.body.id;
      console.log(`Created test booking ${id}`);
    }
  }
  const answer = await client.request('POST', s.path.replace('{id}', encodeURIComponent(id)), body);
  console.log(JSON.stringify(answer.body, null, 2));
  if (answer.status >= 200 && answer.status < 300) return EXIT_OK;
  // The payment-fails scenario answers its decline as the contract's 402: what was asked for.
  if (scenario === 'payment-fails' && answer.status === 402) return EXIT_OK;
  console.error(`HTTP ${answer.status}`);
  return answer.status >= 400 && answer.status < 500 ? EXIT_USAGE : EXIT_API;
}

// ------------------------------------------------------------------ listen

const EVENTS_SUBSCRIPTION = /* GraphQL */ `
  subscription Listen($types: [String!]) {
    events(types: $types) { id type createdAt businessId livemode data request }
  }`;

type LiveEvent = { id: string; type: string; createdAt: string; businessId: string; livemode: boolean; data: unknown; request: { id: string | null; idempotency_key: string | null } };
type RestEvent = ReturnType<typeof presentEvent>;

/** A subscription's event as webhooks send it (the service's own presenter). */
const asWebhookBody = (e: LiveEvent): RestEvent =>
  presentEvent({ id: e.id, businessId: e.businessId, type: e.type, livemode: e.livemode, createdAt: new Date(e.createdAt), data: e.data, requestId: e.request?.id ?? null, idempotencyKey: e.request?.idempotency_key ?? null });

async function listen(client: Api, options: { forwardTo?: string; events?: string; secret?: string }): Promise<number> {
  if (!options.forwardTo) throw usage('listen needs --forward-to URL (where to POST the events)');
  let target: URL;
  try {
    target = new URL(options.forwardTo);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error();
  } catch {
    throw usage(`--forward-to must be an http(s) URL, got '${options.forwardTo}'`);
  }
  const types = options.events ? options.events.split(',').map((t) => t.trim()).filter(Boolean) : null;
  const unknown = (types ?? []).filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length) throw usage(`Unknown event type${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}. The types:\n  ${EVENT_TYPES.join('\n  ')}`);
  if (options.secret !== undefined && !/^whsec_[A-Za-z0-9+/]{16,}={0,2}$/.test(options.secret)) throw usage('--secret must be a whsec_ secret (whsec_ and base64)');
  const secret = options.secret ?? newEndpointSecret();

  // Where the catch-up after a drop starts: the newest event now (also checks the key).
  const newest = await client.request('GET', '/v1/events?limit=1');
  if (newest.status !== 200) throw refused('Reading the events failed', newest);
  let last: { id: string; createdAt: string } | null = newest.body.data?.[0] ? { id: newest.body.data[0].id, createdAt: newest.body.data[0].created_at } : null;
  const forwarded = new Set<string>();
  const remember = (id: string) => {
    forwarded.add(id);
    if (forwarded.size > 10_000) forwarded.delete(forwarded.values().next().value!);
  };

  /** One event to the local URL, signed, and a line about it. */
  async function forward(event: RestEvent) {
    if (forwarded.has(event.id)) return;
    remember(event.id);
    if (!last || event.created_at >= last.createdAt) last = { id: event.id, createdAt: event.created_at };
    if (types && !types.includes(event.type)) return;
    const body = JSON.stringify(event);
    const headers = { 'content-type': 'application/json', 'user-agent': 'rental-cli', ...signatureHeaders(secret, event.id, Math.floor(Date.now() / 1000), body) };
    let outcome: string;
    try {
      const res = await fetch(target, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      outcome = `[${res.status}]`;
    } catch (err) {
      outcome = `[failed: ${(err as Error & { cause?: Error }).cause?.message ?? (err as Error).message}]`;
    }
    console.log(`${new Date().toISOString()}  ${event.type.padEnd(26)} ${event.id}  -> POST ${target.href} ${outcome}`);
  }

  /** The events since the last one seen, oldest first (GET /v1/events lists newest first). */
  async function missed(): Promise<RestEvent[]> {
    if (!last) return [];
    const found: RestEvent[] = [];
    let cursor: string | null = null;
    for (;;) {
      const page = await client.request('GET', `/v1/events?limit=100${cursor ? `&starting_after=${encodeURIComponent(cursor)}` : ''}`);
      if (page.status !== 200) throw refused('Catching up from GET /v1/events failed', page);
      for (const e of page.body.data as RestEvent[]) {
        if (e.id === last.id || e.created_at < last.createdAt) return found.reverse();
        found.push(e);
      }
      if (!page.body.has_more || page.body.data.length === 0) return found.reverse();
      cursor = page.body.data[page.body.data.length - 1].id;
    }
  }

  // One queue: events in the order they came, a catch-up before the live events after a reconnection.
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (task: () => Promise<void>) => {
    queue = queue.then(task).catch((err) => console.error(`error: ${(err as Error).message}`));
  };

  let connections = 0;
  let fatal: ((f: Failure) => void) | null = null;
  const stopped = new Promise<Failure>((resolve) => (fatal = resolve));
  const ws: Client = createClient({
    url: `${client.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${client.key}` },
    lazy: false,
    retryAttempts: Number.MAX_SAFE_INTEGER,
    retryWait: async (retries) => new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 250 * 2 ** Math.min(retries, 5)))),
    // A refused key is final; anything else (the API restarting, the network) is tried again.
    shouldRetry: (event) => !(event && typeof event === 'object' && 'code' in event && ((event as { code: number }).code === 4401 || (event as { code: number }).code === 4403)),
    on: {
      connected: () => {
        connections++;
        if (connections === 1) {
          console.log(`Ready. Forwarding ${types ? types.join(', ') : 'all'} events to ${target.href}`);
          console.log(`Signing secret: ${secret}`);
        } else {
          console.log(`Reconnected; catching up from GET /v1/events`);
          enqueue(async () => {
            for (const e of await missed()) await forward(e);
          });
        }
      },
      closed: (event) => {
        const code = (event as { code?: number } | undefined)?.code;
        if (code === 4401 || code === 4403) fatal?.(new Failure(`The API refused the key: ${(event as { reason?: string }).reason || code}`, EXIT_USAGE));
        else if (connections > 0) console.log(`Connection to ${client.url} lost (${code ?? 'no code'}); reconnecting`);
      },
    },
  });
  ws.subscribe<{ events: LiveEvent }>(
    { query: EVENTS_SUBSCRIPTION, variables: { types } },
    {
      next: (result) => {
        if (result.errors?.length) return console.error(`error: ${result.errors.map((e) => e.message).join('; ')}`);
        const event = result.data?.events;
        if (event) enqueue(() => forward(asWebhookBody(event)));
      },
      error: (err) => fatal?.(err instanceof Failure ? err : new Failure(`The subscription ended: ${describe(err)}`, EXIT_API)),
      complete: () => fatal?.(new Failure('The API ended the subscription', EXIT_API)),
    },
  );
  const interrupted = new Promise<null>((resolve) => {
    process.once('SIGINT', () => resolve(null));
    process.once('SIGTERM', () => resolve(null));
  });
  const outcome = await Promise.race([stopped, interrupted]);
  await ws.dispose();
  if (outcome) throw outcome;
  return EXIT_OK;
}

function describe(err: unknown): string {
  if (Array.isArray(err)) return err.map((e) => (e as Error).message).join('; ');
  if (err instanceof Error) return err.message;
  const close = err as { code?: number; reason?: string };
  return close?.code ? `closed ${close.code} ${close.reason ?? ''}`.trim() : String(err);
}

// ------------------------------------------------------------------ main

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'api-key': { type: 'string' },
        'api-url': { type: 'string' },
        'forward-to': { type: 'string' },
        events: { type: 'string' },
        secret: { type: 'string' },
        booking: { type: 'string' },
        charge: { type: 'string' },
        data: { type: 'string' },
        list: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw usage((err as Error).message);
  }
  const { values: o, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (o.help || !command) {
    console.log(USAGE);
    return o.help ? EXIT_OK : EXIT_USAGE;
  }
  if (command === 'trigger' && o.list) {
    console.log(`Scenarios:\n${scenarioList()}`);
    return EXIT_OK;
  }
  if (command !== 'listen' && command !== 'trigger') throw usage(`Unknown command '${command}'`);
  if (rest.length > (command === 'trigger' ? 1 : 0)) throw usage(`Unexpected argument '${rest[command === 'trigger' ? 1 : 0]}'`);
  const key = o['api-key'] ?? env.RENTAL_API_KEY;
  if (!key) throw usage('A secret key is needed: --api-key or RENTAL_API_KEY');
  const rawUrl = o['api-url'] ?? env.RENTAL_API_URL ?? 'http://127.0.0.1:3000';
  let url: string;
  try {
    const u = new URL(rawUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
    url = u.origin;
  } catch {
    throw usage(`--api-url must be an http(s) URL, got '${rawUrl}'`);
  }
  const client = api(url, key);
  if (command === 'trigger') return trigger(client, rest[0], { booking: o.booking, charge: o.charge, data: o.data });
  return listen(client, { forwardTo: o['forward-to'], events: o.events, secret: o.secret });
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('src/cli/rental.ts')) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      if (err instanceof Failure) {
        console.error(err.message);
        process.exit(err.code);
      }
      console.error(process.env.RENTAL_CLI_DEBUG ? err : `Unexpected error: ${(err as Error).message ?? err} (RENTAL_CLI_DEBUG=1 shows the whole error)`);
      process.exit(EXIT_API);
    },
  );
}

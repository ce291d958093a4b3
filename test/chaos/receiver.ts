// The chaos test's webhook endpoint: a real HTTP server that verifies every delivery's
// Standard Webhooks signature with the endpoint's secret (the standardwebhooks library, as an
// integrator would) and records it. A seeded few deliveries are answered 500, so that retries
// (and their duplicates) happen during the run too.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Rng } from './rng.ts';

export interface Delivery {
  /** webhook-id: the event's id, the same on every retry. */
  webhookId: string;
  type: string | null;
  /** The signature verified with the endpoint's secret, and the body's id is the webhook-id. */
  valid: boolean;
  problem?: string;
  /** What the receiver answered (500: it asked for a retry). */
  answered: number;
  at: number;
}

export async function startWebhookReceiver(rng: Rng, failRate: number) {
  let verifier: Webhook | null = null;
  let failing = true;
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const delivery = verify(verifier, req.headers, body);
      delivery.answered = delivery.valid && rng.chance(failing ? failRate : 0) ? 500 : 204;
      deliveries.push(delivery);
      res.statusCode = delivery.answered;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/chaos-hooks`,
    deliveries,
    /** From now on every delivery is answered 204 (the run is over: the queue drains). */
    stopFailing() {
      failing = false;
    },
    /** The endpoint's whsec_ secret, known once the endpoint is created. */
    useSecret(secret: string) {
      verifier = new Webhook(secret);
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

function headerOf(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

/** A delivery's signature and id, checked as an integrator checks them. */
export function verify(verifier: Webhook | null, headers: IncomingHttpHeaders, body: string): Delivery {
  const webhookId = headerOf(headers, 'webhook-id');
  const at = Date.now();
  let type: string | null = null;
  try {
    type = JSON.parse(body)?.type ?? null;
  } catch {
    // reported below: the signature check fails on it, or the id check does
  }
  if (!verifier) return { webhookId, type, valid: false, problem: 'delivered before the endpoint existed', answered: 0, at };
  try {
    const payload = verifier.verify(body, { 'webhook-id': webhookId, 'webhook-timestamp': headerOf(headers, 'webhook-timestamp'), 'webhook-signature': headerOf(headers, 'webhook-signature') }) as { id?: string };
    if (payload.id !== webhookId) return { webhookId, type, valid: false, problem: `body id ${payload.id} is not the webhook-id`, answered: 0, at };
    return { webhookId, type, valid: true, answered: 0, at };
  } catch (err) {
    return { webhookId, type, valid: false, problem: `signature: ${(err as Error).message}`, answered: 0, at };
  }
}

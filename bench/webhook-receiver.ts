// Child process for the webhooks bench: a loopback webhook receiver answering 204, in its own
// process so that it shares no event loop with the worker or the bench driver. It notes the
// arrival of each request (epoch ms, sub-millisecond, and its rank among all arrivals) as its
// headers come in and reports [webhook-id, arrival, rank] triples to the parent over IPC in
// small batches; the parent checks each endpoint's order from the ranks.
// Signatures: once the parent sends {secrets: {path: secret}}, every SIGN_SAMPLE-th request
// has its Standard Webhooks signature checked (HMAC-SHA256 of "id.timestamp.body"); a wrong
// one is reported as {badSignatures: [...]}.
// Env: PORT (0 = any free port). Prints "READY <port>" when listening.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const SIGN_SAMPLE = 10;
const now = () => performance.timeOrigin + performance.now();

let secrets = new Map<string, Buffer>();
process.on('message', (message: { secrets?: Record<string, string> }) => {
  if (message.secrets) secrets = new Map(Object.entries(message.secrets).map(([p, s]) => [p, Buffer.from(s.replace(/^whsec_/, ''), 'base64')]));
});

let pending: [string, number, number][] = [];
let bad: string[] = [];
let flushScheduled = false;
function flush() {
  flushScheduled = false;
  if ((pending.length === 0 && bad.length === 0) || !process.connected) return;
  process.send!({ hits: pending, badSignatures: bad });
  pending = [];
  bad = [];
}

function signatureHolds(path: string, headers: Record<string, string | string[] | undefined>, body: string): boolean {
  const key = secrets.get(path);
  if (!key) return false;
  const expected = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`).digest();
  const given = String(headers['webhook-signature'] ?? '').split(' ').map((s) => Buffer.from(s.replace(/^v1,/, ''), 'base64'));
  return given.some((g) => g.length === expected.length && timingSafeEqual(g, expected));
}

let rank = 0;
const server = createServer((req, res) => {
  const at = now();
  const n = rank++;
  const id = String(req.headers['webhook-id'] ?? '');
  const check = secrets.size > 0 && n % SIGN_SAMPLE === 0;
  const chunks: Buffer[] = [];
  if (check) req.on('data', (c: Buffer) => chunks.push(c));
  else req.resume();
  req.on('end', () => {
    res.statusCode = 204;
    res.end();
    pending.push([id, at, n]);
    if (check && !signatureHolds(req.url ?? '', req.headers, Buffer.concat(chunks).toString('utf8'))) bad.push(id);
    if (!flushScheduled) {
      flushScheduled = true;
      setTimeout(flush, 5);
    }
  });
});
server.keepAliveTimeout = 30_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});

const shutdown = () => {
  flush();
  server.closeAllConnections();
  server.close();
  process.exit(0);
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
process.on('disconnect', shutdown);

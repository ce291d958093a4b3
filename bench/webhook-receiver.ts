// Child process for the webhooks bench: a loopback webhook receiver answering 204, in its own
// process so that it shares no event loop with the worker or the bench driver. It notes the
// arrival time of each request (epoch ms, sub-millisecond) as its headers come in and
// reports [webhook-id, arrival] pairs to the parent over IPC in small batches.
// Env: PORT (0 = any free port). Prints "READY <port>" when listening.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const now = () => performance.timeOrigin + performance.now();

let pending: [string, number][] = [];
let flushScheduled = false;
function flush() {
  flushScheduled = false;
  if (pending.length === 0 || !process.connected) return;
  process.send!({ hits: pending });
  pending = [];
}

const server = createServer((req, res) => {
  const at = now();
  const id = String(req.headers['webhook-id'] ?? '');
  req.resume();
  req.on('end', () => {
    res.statusCode = 204;
    res.end();
    pending.push([id, at]);
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

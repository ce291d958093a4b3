import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localChecker } from './openapi-check.ts';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  at: number;
  /** How the delivery disagrees with the OpenAPI document's webhooks section, if it does. */
  problem?: string | null;
}

/**
 * A real webhook receiver on loopback. Each delivery is checked against the OpenAPI
 * document's webhooks section; `waitFor` fails on one that does not match (unless the test
 * records `syntheticEvents` of its own, whose objects are no real resource). `answer` decides the status of each request (by its
 * 0-based arrival number); it may also return a promise to answer late.
 */
export async function startReceiver(answer: (n: number, req: Received) => number | Promise<number> = () => 204, options: { syntheticEvents?: boolean } = {}) {
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      const json = safeJson(body);
      const entry: Received = { headers: req.headers, body, json, at: Date.now(), problem: options.syntheticEvents ? null : localChecker().webhookProblem(req.headers, json) };
      const n = received.length;
      received.push(entry);
      waiters.splice(0).forEach((w) => w());
      const status = await answer(n, entry);
      res.statusCode = status;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    /** Wait until `predicate` holds over what arrived, or fail after `timeoutMs`. */
    async waitFor(predicate: (all: Received[]) => boolean, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const wrong = received.find((r) => r.problem);
        if (wrong) throw new Error(wrong.problem!);
        if (predicate(received)) break;
        if (Date.now() > deadline) throw new Error(`receiver: condition not met in ${timeoutMs} ms; got ${received.length} requests: ${received.map((r) => r.json?.type).join(', ')}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

function safeJson(text: string) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

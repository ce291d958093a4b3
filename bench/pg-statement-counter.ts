// A tiny TCP proxy between a client and PostgreSQL that counts the statements the client
// sends, read off the frontend protocol itself: every simple Query ('Q') and every Execute
// ('E') of the extended protocol is one statement run by the server. The SQL text of 'Q'
// and Parse ('P') messages is kept too, so a bench can show what ran, and the time the
// server was busy: from a client's first message of a batch to the server's ReadyForQuery.
import net from 'node:net';

export interface StatementCounter {
  /** Where to point the client: same host/port shape as PostgreSQL's. */
  port: number;
  /** Statements (Q + E messages) seen since the last reset. */
  count(): number;
  /** SQL texts seen since the last reset (Parse and Query messages, in order). */
  texts(): string[];
  /** The client connection (numbered from 0) each of `texts()` was sent on. */
  connections(): number[];
  /** Milliseconds PostgreSQL spent on them (request sent -> ReadyForQuery), summed over connections. */
  busyMs(): number;
  reset(): void;
  close(): Promise<void>;
}

export async function startStatementCounter(target: { host: string; port: number }): Promise<StatementCounter> {
  let statements = 0;
  let sql: string[] = [];
  let sqlConnections: number[] = [];
  let connectionCount = 0;
  let busy = 0;
  const sockets = new Set<net.Socket>();

  const server = net.createServer((client) => {
    const connection = connectionCount++;
    const upstream = net.connect(target.port, target.host);
    // Forward each message at once: with Nagle's algorithm a client's second small write waits
    // for the server's delayed ACK (40 ms on Linux), a stall no real connection has.
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    sockets.add(client).add(upstream);
    let buffer: Buffer = Buffer.alloc(0);
    let startupDone = false;
    let since: number | null = null; // when this connection's current batch was sent
    let backend: Buffer = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      for (;;) {
        if (!startupDone) {
          // StartupMessage / SSLRequest: int32 length (inclusive), no type byte.
          if (buffer.length < 8) break;
          const length = buffer.readInt32BE(0);
          if (buffer.length < length) break;
          const code = buffer.readInt32BE(4);
          buffer = buffer.subarray(length);
          if (code !== 80877103 && code !== 80877104) startupDone = true; // not SSLRequest / GSSENCRequest
          continue;
        }
        if (buffer.length < 5) break;
        const type = String.fromCharCode(buffer[0]);
        const length = buffer.readInt32BE(1);
        if (buffer.length < 1 + length) break;
        const body = buffer.subarray(5, 1 + length);
        if (since === null && 'PBEQ'.includes(type)) since = performance.now();
        if (type === 'Q') {
          statements++;
          sql.push(body.toString('utf8', 0, Math.max(0, body.indexOf(0))));
          sqlConnections.push(connection);
        } else if (type === 'E') {
          statements++;
        } else if (type === 'P') {
          const nameEnd = body.indexOf(0);
          const queryEnd = body.indexOf(0, nameEnd + 1);
          sql.push(body.toString('utf8', nameEnd + 1, queryEnd));
          sqlConnections.push(connection);
        }
        buffer = buffer.subarray(1 + length);
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      // Backend messages: type byte + int32 length (no SSL here, so framing starts at once).
      backend = backend.length ? Buffer.concat([backend, chunk]) : chunk;
      while (backend.length >= 5) {
        const length = backend.readInt32BE(1);
        if (backend.length < 1 + length) break;
        if (backend[0] === 0x5a /* Z */ && since !== null) {
          busy += performance.now() - since;
          since = null;
        }
        backend = backend.subarray(1 + length);
      }
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    port: address.port,
    count: () => statements,
    texts: () => [...sql],
    connections: () => [...sqlConnections],
    busyMs: () => busy,
    reset: () => {
      statements = 0;
      sql = [];
      sqlConnections = [];
      busy = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Transactions among the statements a counter saw: on each connection, each BEGIN ... COMMIT /
 * ROLLBACK is one, and each statement outside one is one of its own.
 */
export function transactionsOf(counter: Pick<StatementCounter, 'texts' | 'connections'>): number {
  const texts = counter.texts();
  const connections = counter.connections();
  const open = new Set<number>();
  let transactions = 0;
  texts.forEach((text, i) => {
    const word = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase();
    if (word === 'BEGIN' || word === 'START') {
      transactions++;
      open.add(connections[i]);
    } else if (word === 'COMMIT' || word === 'ROLLBACK' || word === 'END') {
      open.delete(connections[i]);
    } else if (!open.has(connections[i])) {
      transactions++;
    }
  });
  return transactions;
}

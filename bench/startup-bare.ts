// Child process: the bare baseline of the startup bench. Opens PGlite on the fresh data
// directory DATA_DIR (no extensions, no schema) and answers GET /health/ready with the result
// of `SELECT 1` over node:http. Prints "READY <port>" when listening (PORT, 0 = any).
import http from 'node:http';
import { PGlite } from '@electric-sql/pglite';

const dataDir = process.env.DATA_DIR;
if (!dataDir) throw new Error('DATA_DIR is required');
const db = await PGlite.create(dataDir);
const server = http.createServer(async (_req, res) => {
  const { rows } = await db.query<{ ok: number }>('SELECT 1 AS ok');
  const body = JSON.stringify({ status: rows[0].ok === 1 ? 'ok' : 'unavailable' });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`READY ${typeof address === 'object' && address ? address.port : ''}\n`);
});
const stop = async () => {
  server.close();
  await db.close().catch(() => {});
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

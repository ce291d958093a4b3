// A PostgreSQL cluster of a test's own (initdb and pg_ctl in a temporary directory, on a free
// port), which the test stops, starts and restarts; the machine's shared server (5432) and
// the tests that use it are never touched.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './redis.ts';

const PG_BIN = process.env.TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** initdb refuses root: as root, the cluster belongs to the postgres user and its tools run as that user. */
const asRoot = process.getuid?.() === 0;

function command(tool: string, args: string[]): [string, string[]] {
  const bin = path.join(PG_BIN, tool);
  return asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
}

function run(tool: string, args: string[]): Promise<{ code: number | null; output: string }> {
  const [cmd, argv] = command(tool, args);
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

export interface PrivatePostgres {
  port: number;
  /** postgresql://postgres@127.0.0.1:<port>/<database> */
  url: string;
  /** `pg_ctl stop -m fast`: sessions are ended (57P01), then nothing listens on the port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** `pg_ctl restart -m fast`. */
  restart(): Promise<void>;
  /** `pg_ctl restart -m immediate`: every backend dies at once, as in a crash; resolves when it accepts connections again. */
  restartImmediate(): Promise<{ downMs: number }>;
  /** The server log's last 40 lines. */
  logTail(): Promise<string>;
  /** Stop the cluster and remove its directory. */
  destroy(): Promise<void>;
}

export async function startPrivatePostgres(options: { database?: string; settings?: string } = {}): Promise<PrivatePostgres> {
  const database = options.database ?? 'app';
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rental-pg-'));
  if (asRoot) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout);
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout);
    chownSync(dir, uid, gid);
  }
  const data = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  const port = await freePort();
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off ${options.settings ?? ''}`;
  // A test that dies still stops its server.
  const kill = () => spawnSync(...command('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']), { stdio: 'ignore' });
  process.once('exit', kill);

  const must = async (tool: string, args: string[]) => {
    const { code, output } = await run(tool, args);
    if (code !== 0) throw new Error(`${tool} failed (${code}):\n${output}\n${await readFile(logFile, 'utf8').catch(() => '')}`);
  };
  const pgCtl = (action: string, mode = 'fast') => must('pg_ctl', ['-D', data, '-l', logFile, '-o', serverOptions, '-m', mode, '-w', '-t', '60', action]);
  await must('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  await pgCtl('start');
  await must('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', database]);
  return {
    port,
    url: `postgresql://postgres@127.0.0.1:${port}/${database}`,
    stop: () => pgCtl('stop'),
    start: () => pgCtl('start'),
    restart: () => pgCtl('restart'),
    async restartImmediate() {
      const begun = Date.now();
      await pgCtl('restart', 'immediate');
      return { downMs: Date.now() - begun };
    },
    logTail: async () => (await readFile(logFile, 'utf8').catch(() => '')).split('\n').slice(-40).join('\n'),
    async destroy() {
      kill();
      process.removeListener('exit', kill);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

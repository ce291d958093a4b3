// A throwaway redis-server for one test file (never the shared one on 6379): on a free port,
// nothing persisted, stopped (or killed, for a crash) and started again on the same port.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';

/** A port nothing listens on right now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Whether something accepts TCP connections on the port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface TestRedis {
  port: number;
  url: string;
  /** SIGKILL by default: Redis vanishing as in a crash. Resolves once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Start it again on the same port (empty: nothing was persisted). */
  restart(): Promise<void>;
  output(): string;
}

export async function startTestRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  let output = '';

  async function start() {
    const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout!.on('data', (d) => (output += d));
    proc.stderr!.on('data', (d) => (output += d));
    child = proc;
    const deadline = Date.now() + 15_000;
    while (!(await accepts(port))) {
      if (proc.exitCode !== null) throw new Error(`redis-server on ${port} exited with ${proc.exitCode}:\n${output}`);
      if (Date.now() > deadline) throw new Error(`redis-server on ${port} not listening in 15 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop(signal = 'SIGKILL') {
      const proc = child;
      child = null;
      if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      proc.kill(signal);
      await exited;
    },
    async restart() {
      if (child) throw new Error('redis-server is still running');
      await start();
    },
    output: () => output,
  };
}

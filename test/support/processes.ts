import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { checkAnswersOf } from './under-test.ts';

const root = path.resolve(import.meta.dirname, '../..');

export interface Child {
  process: ChildProcess;
  output: () => string;
  /** SIGTERM and wait; `kill('SIGKILL')` for a crash. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Start a TypeScript entry point of the project as a real child process. */
export function spawnTs(script: string, env: Record<string, string>, readyPattern: RegExp, timeoutMs = 60_000): Promise<Child & { match: RegExpMatchArray }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const handle: Child = {
    process: child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} not ready in ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const check = () => {
      const match = readyPattern.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve({ ...handle, match });
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before ready:\n${output}`));
    });
  });
}

/** The API server as a child process; resolves with its base URL. */
export async function spawnServer(env: Record<string, string>) {
  const child = await spawnTs('test/support/serve-process.ts', { PORT: '0', ...env }, /READY (\d+)/);
  const baseUrl = `http://127.0.0.1:${child.match[1]}`;
  checkAnswersOf(baseUrl);
  return { ...child, baseUrl };
}

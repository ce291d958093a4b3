// Every benchmark in turn, then one table of the targets: the project's figure, the bare
// baseline's, the ratio, the goal, and whether it is met. Each script's own output is kept in
// bench/results/<script>.log; the table is printed and written to bench/results/table.md.
//
// Env: BENCH_ONLY (comma-separated script names, e.g. "vehicle-read,webhooks"); every
//      script's own settings pass through (BENCH_SECONDS, ...).
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { benchDir, runBench } from './harness.ts';
import type { BenchResult } from './result.ts';

const SCRIPTS = ['vehicle-read', 'booking-create', 'bookings-page', 'availability', 'webhooks', 'subscribers', 'startup', 'restart'];

function run(script: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(benchDir, `${script}.bench.ts`)], { cwd: path.resolve(benchDir, '..'), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const take = (chunk: Buffer) => {
      output += chunk.toString();
      process.stdout.write(chunk);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} CPU(s) ${cpus[0]?.model.trim() ?? ''}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

function table(rows: (BenchResult & { script: string })[]): string {
  const header = ['target', 'project', 'baseline', 'ratio', 'goal', 'meets'];
  const cells = rows.map((r) => [r.target, r.project, r.baseline, r.ratio, r.goal, r.meets ? 'yes' : 'NO']);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => `| ${c.map((v, i) => v.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}

async function main() {
  const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim()).filter(Boolean);
  const scripts = only?.length ? SCRIPTS.filter((s) => only.includes(s)) : SCRIPTS;
  const resultsDir = path.join(benchDir, 'results');
  await mkdir(resultsDir, { recursive: true });
  const rows: (BenchResult & { script: string })[] = [];
  const failed: string[] = [];
  for (const script of scripts) {
    console.log(`\n=== ${script}`);
    const { code, output } = await run(script);
    await writeFile(path.join(resultsDir, `${script}.log`), output);
    const found = output.split('\n').filter((l) => l.startsWith('RESULT ')).map((l) => ({ ...(JSON.parse(l.slice(7)) as BenchResult), script }));
    rows.push(...found);
    if (code !== 0 || found.length === 0) failed.push(`${script} (exit ${code}, ${found.length} results)`);
  }
  const text = `Machine: ${machine()}\n\n${table(rows)}\n`;
  console.log(`\n${text}`);
  await writeFile(path.join(resultsDir, 'table.md'), text);
  if (failed.length) {
    console.error(`bench:all: these did not complete: ${failed.join(', ')}`);
    process.exitCode = 1;
  }
}

runBench(main);

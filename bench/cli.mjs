// Shared by the CLI benchmarks: run a command N times, return the wall times in ms.
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import process from 'node:process';

export const CLI = new URL('../dist/cli/main.js', import.meta.url).pathname;

export function timeCommand(args, { runs = 15, cwd = process.cwd() } = {}) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, {
      cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, CI: 'true' },
    });
    times.push(performance.now() - started);
    if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  }
  return times;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r) => `| ${r.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`).join('\n');
}

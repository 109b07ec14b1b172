// Replays a recorded --json event stream through one reporter at the pace it was recorded, and writes the
// process's CPU time (user + system, ms) spent from the first event to the reporter's end to a file:
//   node bench/support/replay-reporter.mjs terminal|plain|none EVENTS.ndjson RESULT.json
// Run it on a pseudo-terminal of the size to measure (bench/terminal.bench.mjs does).
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { importTs } from '../../scripts/import-ts.mjs';

const [mode, file, result] = process.argv.slice(2);
const root = new URL('../../', import.meta.url).pathname;
const { terminalReporter } = await importTs(`${root}src/cli/reporters/terminal.ts`);
const { plainReporter } = await importTs(`${root}src/cli/reporters/plain.ts`);
const events = readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l))
  .filter((e) => e.type !== 'version');
const write = (t) => process.stdout.write(t);
const cpu0 = process.cpuUsage();
const wall0 = performance.now();
let listener = () => undefined;
let finished = () => Promise.resolve();
if (mode === 'terminal') {
  const r = terminalReporter(process.stdout, process.stderr);
  listener = r.listener;
  finished = async () => r.finished();
} else if (mode === 'plain') listener = plainReporter(write, false);
const t0 = Date.parse(events[0].time);
for (const event of events) {
  const due = Date.parse(event.time) - t0 - (performance.now() - wall0);
  if (due > 0) await sleep(due);
  listener(event);
}
await finished();
const cpu = process.cpuUsage(cpu0);
writeFileSync(
  result,
  JSON.stringify({
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs: performance.now() - wall0,
    events: events.length,
  }),
);

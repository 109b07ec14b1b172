// CLI cold start against the floor of `node -e 0`: `ledgerbook --help`, and `ledgerbook validate` of every
// shipped playbook. Each command runs paired with the floor (A B A B …, each a fresh process, `CI=true`), and the
// ratio is taken pair by pair, so that a machine whose speed drifts during the run still compares like with like.
// Targets (issue 19): validate ≤ 1.5× the floor, --help ≤ 1.2×.
// Usage: npm run build && node bench/cold-start.bench.mjs [pairs]
import { readdirSync } from 'node:fs';
import process from 'node:process';
import { CLI, median, table, timeCommand } from './cli.mjs';

const pairs = Number(process.argv[2] ?? 11);
const root = new URL('..', import.meta.url).pathname;
const playbooks = readdirSync(new URL('../playbooks', import.meta.url))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => `playbooks/${f}`);

/** median wall ms of the command and of the floor, and the median of the pairwise ratios */
function paired(args) {
  const times = [];
  const floors = [];
  timeCommand(args, { runs: 1, cwd: root }); // warm the file cache
  for (let i = 0; i < pairs; i++) {
    times.push(...timeCommand(args, { runs: 1, cwd: root }));
    floors.push(...timeCommand(['-e', '0'], { runs: 1 }));
  }
  return { ms: median(times), floor: median(floors), ratio: median(times.map((t, i) => t / floors[i])) };
}

const rows = [['command', 'median ms', 'floor ms', 'paired ratio (median)', 'target']];
const measure = (label, args, target) => {
  const { ms, floor, ratio } = paired(args);
  rows.push([label, ms.toFixed(0), floor.toFixed(0), `${ratio.toFixed(2)}×`, `≤ ${target}×`]);
  return ratio;
};
const help = measure('ledgerbook --help', [CLI, '--help'], 1.2);
let worst = 0;
for (const playbook of playbooks)
  worst = Math.max(worst, measure(`ledgerbook validate ${playbook}`, [CLI, 'validate', playbook], 1.5));
console.log(table(rows));
console.log(
  `\n--help: ${help.toFixed(2)}× (target 1.2×: ${help <= 1.2 ? 'met' : 'NOT met'}); ` +
    `worst validate: ${worst.toFixed(2)}× (target 1.5×: ${worst <= 1.5 ? 'met' : 'NOT met'})`,
);

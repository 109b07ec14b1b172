// CLI cold start against the floor of `node -e 0`: `ledgerbook --help`, and `ledgerbook validate` of every
// shipped playbook. Target: validate within 3× the floor. Usage: npm run build && node bench/cold-start.bench.mjs
import { readdirSync } from 'node:fs';
import process from 'node:process';
import { CLI, median, table, timeCommand } from './cli.mjs';

const runs = Number(process.argv[2] ?? 15);
const root = new URL('..', import.meta.url).pathname;
const playbooks = readdirSync(new URL('../playbooks', import.meta.url))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => `playbooks/${f}`);

const floor = median(timeCommand(['-e', '0'], { runs }));
const rows = [['command', 'median ms', '× floor']];
rows.push(['node -e 0', floor.toFixed(0), '1.0']);
const measure = (label, args) => {
  const ms = median(timeCommand([CLI, ...args], { runs, cwd: root }));
  rows.push([label, ms.toFixed(0), (ms / floor).toFixed(1)]);
  return ms / floor;
};
measure('ledgerbook --help', ['--help']);
let worst = 0;
for (const playbook of playbooks)
  worst = Math.max(worst, measure(`ledgerbook validate ${playbook}`, ['validate', playbook]));
console.log(table(rows));
console.log(
  `\nworst validate: ${worst.toFixed(1)}× the node floor (target: within 3×): ${worst <= 3 ? 'met' : 'NOT met'}`,
);

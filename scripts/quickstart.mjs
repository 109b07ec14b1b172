// The README's quickstart: the party playbooks, then mint-and-distribute, each run by the built CLI on the
// embedded sandbox (its state in .ledgerbook/, so each playbook meets what the one before made). Stops at the
// first playbook that does not succeed, with its exit code. Extra arguments go to every run (e.g. --state-dir).
// Its last lines say where the state is and how to look at it.
import { spawnSync } from 'node:child_process';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli', 'main.js');
const playbooks = ['onboard-party', 'distribute-dars', 'deploy-contracts', 'mint-and-distribute'];
const extra = process.argv.slice(2);

/** The state dir the runs use (they run in the repository's folder), and the flag that names it. */
function stateDir() {
  const at = extra.findIndex((arg) => arg === '--state-dir' || arg.startsWith('--state-dir='));
  const given =
    at < 0 ? undefined : extra[at].includes('=') ? extra[at].slice('--state-dir='.length) : extra[at + 1];
  const full = resolve(root, given ?? '.ledgerbook');
  const inside = relative(root, full);
  return {
    dir: inside === '' || inside.startsWith('..') || isAbsolute(inside) ? full : inside,
    flag: given === undefined ? '' : ` --state-dir ${given}`,
  };
}

/** Where the runs keep their state, and the command that shows where each stands. */
function where() {
  const { dir, flag } = stateDir();
  const here = resolve(process.cwd()) === resolve(root) ? '' : ` (in ${root})`;
  process.stdout.write(
    `quickstart: the state of these runs is in ${dir}/ (a journal per playbook; the sandbox's ledger in ${join(dir, 'sandbox')}/)\n` +
      `quickstart: \`npx ledgerbook status${flag}\`${here} shows where each run stands\n`,
  );
}

const started = Date.now();
for (const name of playbooks) {
  const run = spawnSync(process.execPath, [cli, 'run', join('playbooks', `${name}.yaml`), ...extra], {
    cwd: root,
    stdio: 'inherit',
  });
  if (run.status !== 0) {
    process.stderr.write(
      `quickstart: playbooks/${name}.yaml did not succeed (exit ${run.status ?? run.signal})\n`,
    );
    where();
    process.exit(run.status ?? 1);
  }
}
process.stdout.write(
  `quickstart: ${playbooks.length} playbooks in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);
where();

// The README's quickstart: the party playbooks, then mint-and-distribute, each run by the built CLI on the
// embedded sandbox (its state in .ledgerbook/, so each playbook meets what the one before made). Stops at the
// first playbook that does not succeed, with its exit code. Extra arguments go to every run (e.g. --state-dir).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli', 'main.js');
const playbooks = ['onboard-party', 'distribute-dars', 'deploy-contracts', 'mint-and-distribute'];

const started = Date.now();
for (const name of playbooks) {
  const run = spawnSync(
    process.execPath,
    [cli, 'run', join('playbooks', `${name}.yaml`), ...process.argv.slice(2)],
    { cwd: root, stdio: 'inherit' },
  );
  if (run.status !== 0) {
    process.stderr.write(
      `quickstart: playbooks/${name}.yaml did not succeed (exit ${run.status ?? run.signal})\n`,
    );
    process.exit(run.status ?? 1);
  }
}
process.stdout.write(
  `quickstart: ${playbooks.length} playbooks in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);

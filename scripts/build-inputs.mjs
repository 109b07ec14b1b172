// What a build of dist/ is made from, as one digest: the sources the bundles read (the CLI's and the sandbox's),
// the schemas and playbooks (the playbooks are run at build time to make the module packs and the code cache),
// the build scripts, the installed packages (by the lock file) and the Node.js that made the code cache. The build
// writes it beside its output; a build whose inputs have not changed since is skipped (scripts/build.mjs).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import process from 'node:process';

/**
 * the folders and files under `root` whose contents the build depends on; of the playbooks the shipped ones, which
 * the build runs (not what their runs write beside them: playbooks/reports/)
 */
function inputs(root) {
  const playbooks = existsSync(join(root, 'playbooks'))
    ? readdirSync(join(root, 'playbooks'))
        .filter((name) => name.endsWith('.yaml'))
        .map((name) => `playbooks/${name}`)
        .sort()
    : [];
  return [
    'src',
    'schemas',
    ...playbooks,
    'contracts',
    'scripts',
    'packages/sandbox/src',
    'packages/sandbox/scripts',
    'packages/sandbox/package.json',
    'package.json',
    'package-lock.json',
    'tsconfig.json',
  ];
}

/** tests are not built into dist/ */
const isTest = (name) => /\.test\.[cm]?[jt]s$/.test(name);

function* files(root, path) {
  let stat;
  try {
    stat = statSync(path);
  } catch (error) {
    if (error.code === 'ENOENT') return;
    throw error;
  }
  if (stat.isFile()) {
    yield relative(root, path);
    return;
  }
  for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || isTest(entry.name)) continue;
    yield* files(root, join(path, entry.name));
  }
}

/** the digest of the build's inputs under `root` */
export function buildInputsDigest(root) {
  const hash = createHash('sha256').update(`node ${process.version}\0`);
  for (const input of inputs(root))
    for (const file of files(root, join(root, input)))
      hash
        .update(`${file}\0`)
        .update(readFileSync(join(root, file)))
        .update('\0');
  return hash.digest('hex');
}

/** the file in dist/ where a build records the digest of what it was made from */
export const BUILD_INPUTS_NAME = 'build-inputs.sha256';

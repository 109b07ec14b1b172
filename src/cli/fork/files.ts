/** The files `sandbox up --fork` keeps in the copy's state dir (`<state dir>/sandbox/`), beside the sandbox's own. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Sandbox } from '../sandbox-package.js';

/** the fork snapshot the copy was seeded from (JSON lines, mode 0600) */
export const FORK_SNAPSHOT = 'fork-snapshot.jsonl';

/** the copy's target, as `--write-target` writes it (secret files named, no secret in it), for later starts */
export const FORK_TARGET = 'fork-target.yaml';

/**
 * The target a sandbox's runs use: its own, or a fork's kept copy target (the original's names with the copy's
 * URLs and logins). `dir` is the sandbox's state dir.
 */
export async function sandboxTargetYaml(sandbox: Sandbox, dir: string): Promise<string> {
  return sandbox.fork === undefined ? sandbox.targetYaml() : readFile(join(dir, FORK_TARGET), 'utf8');
}

/** The files `sandbox up --fork` keeps in the copy's state dir (`<state dir>/sandbox/`), beside the sandbox's own. */

/** the fork snapshot the copy was seeded from (JSON lines, mode 0600) */
export const FORK_SNAPSHOT = 'fork-snapshot.jsonl';

/** the copy's target, as `--write-target` writes it (secret files named, no secret in it), for later starts */
export const FORK_TARGET = 'fork-target.yaml';

/**
 * Which file a run belongs to. The state keys runs by the playbook's `name:` and the target, so two files with
 * the same name share one state; a run records its file as every checkout names it — the path in the git work
 * tree it lives in (a shared PostgreSQL state is used from several machines and checkouts, whose absolute
 * paths differ), or the absolute path outside one — and a run of another file with the same name is refused.
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { StateError } from '../errors.js';
import type { RunState } from './journal-state.js';

/** `file`'s path relative to the root of its git work tree (`/`-separated), else its absolute path. */
export function playbookPath(file: string): string {
  const absolute = realPath(resolve(file));
  for (let dir = dirname(absolute); ; dir = dirname(dir)) {
    // a work tree's root holds `.git`: a folder, or a file in a linked work tree or a submodule
    if (existsSync(join(dir, '.git'))) return relative(dir, absolute).split(sep).join('/');
    if (dirname(dir) === dir) return absolute;
  }
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return path;
    throw error;
  }
}

/**
 * Refuses to carry on the state of another file with the same `name:` and target (its last run recorded
 * another path). Journals written before paths were recorded are taken as this file's.
 */
export function checkSamePlaybook(
  last: RunState | undefined,
  current: { file: string; path: string },
  where: string,
): void {
  if (last?.path === undefined || last.path === current.path) return;
  const finished = last.status === 'running' ? 'unfinished' : last.status;
  throw new StateError(
    `${current.path} and ${last.path} both have \`name: ${last.playbook}\`: the state of ${last.playbook} on target ${last.target} (${where}) holds the runs of ${last.path} (its last run ${last.run}, ${finished}, started by ${last.user} from ${last.file}), not this file's`,
    `give one of the two files another \`name:\` (each name has its own state), or run ${current.file} again with --fresh to start its own run in this state: that abandons the other file's run, and the other file is then refused the same way`,
  );
}

/**
 * Where a run's journal and lock live: `<stateDir>/<playbook>@<target>/`. Playbook and target names are
 * already restricted by their schemas; the encoding below keeps the directory name safe (and reversible)
 * for any name that reaches it anyway.
 */
import { chmod, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { StateError } from '../errors.js';

/** The state directory used when the CLI is given no `--state-dir`, relative to the current directory. */
export const DEFAULT_STATE_DIR = '.ledgerbook';

const SEPARATOR = '@';

/** Percent-encodes every byte outside `[A-Za-z0-9._-]`, and a leading dot (no hidden or `..` names). */
function encodePart(name: string): string {
  let out = '';
  for (const byte of Buffer.from(name, 'utf8')) {
    const ch = String.fromCharCode(byte);
    const safe = /[A-Za-z0-9_-]/.test(ch) || (ch === '.' && out.length > 0);
    out += safe ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function decodePart(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch (error) {
    if (error instanceof URIError) return undefined;
    throw error;
  }
}

/**
 * Creates a run directory (and the state directory above it) readable by the owner only: the lock and the
 * journal hold the command line, which may carry `--input` values. An existing run directory is narrowed too.
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Windows has no POSIX modes; elsewhere a directory left by an older version is narrowed to 0700.
  if (process.platform !== 'win32') await chmod(dir, 0o700);
}

export function runKey(playbookName: string, targetName: string): string {
  return `${encodePart(playbookName)}${SEPARATOR}${encodePart(targetName)}`;
}

export function runDir(stateDir: string, playbookName: string, targetName: string): string {
  return join(stateDir, runKey(playbookName, targetName));
}

/** The run directories under `stateDir`, sorted by playbook then target; none when it does not exist. */
export async function listRunDirs(
  stateDir: string,
): Promise<Array<{ playbook: string; target: string; dir: string }>> {
  let entries;
  try {
    entries = await readdir(stateDir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new StateError(
      `cannot read the state directory ${stateDir}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      'check that it is a directory you can read, or pass another one with --state-dir',
      error,
    );
  }
  const runs: Array<{ playbook: string; target: string; dir: string }> = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const parts = entry.name.split(SEPARATOR);
    if (parts.length !== 2) continue;
    const playbook = decodePart(parts[0] ?? '');
    const target = decodePart(parts[1] ?? '');
    if (!playbook || !target) continue;
    runs.push({ playbook, target, dir: join(stateDir, entry.name) });
  }
  return runs.sort((a, b) => a.playbook.localeCompare(b.playbook) || a.target.localeCompare(b.target));
}

/**
 * Files named on the command line follow one rule: a file to read that is missing, unreadable or not what it should
 * be, and a path to write that cannot be written (its folder missing, a folder itself, no permission), are refused
 * with exit 65 before anything runs, naming the flag, the path, why, and what to do. Playbooks and targets are read
 * by src/validation/load.ts (diagnostics at 1:1), secrets files by src/engine/secrets.ts, saved plans by
 * commands/plan.ts, faults files by the sandbox; the paths written at the end of a command are checked here.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { FileArgumentError } from '../errors.js';

/** An output file the command will write later: refused now, before anything runs, if it cannot be written. */
export async function checkWritable(file: string, flag: string): Promise<void> {
  const folder = dirname(resolve(file));
  const info = await stat(folder).catch(() => undefined);
  if (!info?.isDirectory())
    throw new FileArgumentError(
      `${flag} ${file}: the folder ${folder} does not exist`,
      'create it first, or give another path',
    );
  const existing = await stat(file).catch(() => undefined);
  if (existing?.isDirectory())
    throw new FileArgumentError(`${flag} ${file}: it is a folder`, 'give a file path');
  try {
    await access(existing ? file : folder, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new FileArgumentError(
      `${flag} ${file}: not writable (${code})`,
      'check the permissions, or give another path',
      error,
    );
  }
}

/**
 * The sandbox's persisted state: JSON files under the state dir, each written atomically (a temporary file in
 * the same directory, then rename) so that a killed process leaves either the old or the new content.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { stateError } from './errors.js';

export function writeJsonAtomic(file: string, value: unknown, mode = 0o644): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(value, null, 1) + '\n', { mode });
  renameSync(tmp, file);
}

/** The file's JSON content, or undefined when it does not exist. */
export function readJson<T>(file: string): T | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw stateError(`cannot read sandbox state ${file}: ${(error as Error).message}`, undefined, error);
  }
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw stateError(
      `sandbox state ${file} is not valid JSON: ${(error as Error).message}`,
      'the file was edited or is corrupt; start the sandbox with a fresh --state-dir (or delete the file)',
      error,
    );
  }
}

/**
 * A CLI whose own modules changed after they were built (a file truncated, edited or deleted) fails when it loads
 * one of them. That is no bug of ledgerbook's code and no reason to send a report: the user is told which file,
 * and to build again or reinstall. Exit 70, as an internal error. Imports nothing of the CLI: the executable
 * (start.ts) uses it before any other module of the CLI has loaded.
 */
import { realpathSync } from 'node:fs';
import { dirname, sep } from 'node:path';

export const DAMAGED_BUILD_HINT =
  'build it again (`npm run build -- --force` in its repository), or reinstall ledgerbook';

/**
 * What is damaged, when `error` is the failure to load one of the modules under `dir` (by default the CLI's own:
 * the folder of the executable Node runs, dist/cli); undefined for any other error.
 */
export function damagedBuildProblem(error: unknown, dir: string = executableDir()): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const own = (file: string | undefined): boolean => file !== undefined && file.startsWith(dir + sep);
  if (error instanceof SyntaxError) {
    // Node's loader puts `<file>:<line>` of a module that does not compile above the message
    const file = /^(.+):\d+\n/.exec(error.stack ?? '')?.[1];
    return own(file)
      ? `ledgerbook's build is damaged: ${file} does not compile (${error.message})`
      : undefined;
  }
  const { code, requireStack } = error as NodeJS.ErrnoException & { requireStack?: string[] };
  const missing = /^Cannot find module '([^']+)'/.exec(error.message)?.[1];
  const loader = requireStack?.[0];
  if (code !== 'MODULE_NOT_FOUND' || missing === undefined || loader === undefined || !own(loader))
    return undefined;
  return `ledgerbook's build is damaged: ${missing}, which ${loader} loads, is missing`;
}

/** The report of a damaged build (damagedBuildProblem), for the handlers outside a command; undefined otherwise. */
export function damagedBuildMessage(error: unknown, dir?: string): string | undefined {
  const problem = damagedBuildProblem(error, dir);
  return problem && `error: ${problem}\n  hint: ${DAMAGED_BUILD_HINT}\n`;
}

function executableDir(): string {
  try {
    return dirname(realpathSync(process.argv[1] ?? ''));
  } catch {
    return '';
  }
}

/**
 * The one door from the CLI to the sandbox: the `@ledgerbook/sandbox` package, loaded on first use (only
 * `sandbox up` and a run or plan without --target need it), and the one place where the sandbox's errors become
 * the CLI's — a bad option or port is a usage error (64), a faults file with problems an invalid input (65), an
 * unusable state dir a state error. A CLI installed without the package says which package to install.
 */
import type * as Sandboxes from '@ledgerbook/sandbox';
import type { FaultSpec, Sandbox, SandboxOptions } from '@ledgerbook/sandbox';
import { StateError, UsageError, ValidationError } from '../errors.js';
import { stderr, stdout } from './stdio.js';

export const SANDBOX_PACKAGE = '@ledgerbook/sandbox';

/** the fork snapshot's records and report, which `sandbox up --fork` writes and prints (src/cli/fork/) */
export type { ForkRecord, ForkSummary, Sandbox, SandboxUrls } from '@ledgerbook/sandbox';

type SandboxModule = typeof Sandboxes;

export interface SandboxPackage {
  startSandbox: (options: SandboxOptions) => Promise<Sandbox>;
  loadFaultsFile: (file: string) => Promise<FaultSpec[]>;
  /** refuses a state dir that holds a sandbox already: a fork is seeded into a new one only */
  checkForkable: (stateDir: string) => Promise<void>;
}

async function load(): Promise<SandboxModule> {
  // the sandbox writes to process.stderr itself: from here on the CLI's writes go through Node's streams too, in
  // the order they are made, and a reader that goes away ends them without an error (src/cli/stdio.ts)
  stdout.stream();
  stderr.stream();
  try {
    return await import('@ledgerbook/sandbox');
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' &&
      String(error).includes(SANDBOX_PACKAGE)
    ) {
      throw new UsageError(
        `the sandbox is not installed: it is the package ${SANDBOX_PACKAGE}`,
        'it comes with the ledgerbook repository (packages/sandbox): run ledgerbook from a clone after npm ci, or name a real network with --target',
      );
    }
    throw error;
  }
}

/** The sandbox's error as the CLI's, or the error itself when it is not one of the sandbox's. */
function translated(error: unknown, sandbox: SandboxModule): unknown {
  if (!(error instanceof sandbox.SandboxError)) return error;
  switch (error.kind) {
    case 'usage':
      return new UsageError(error.message, error.hint);
    case 'input':
      return new ValidationError('LB_INPUT_INVALID', error.problems);
    case 'state':
      return new StateError(error.message, error.hint, error.cause);
  }
}

export async function sandboxPackage(): Promise<SandboxPackage> {
  const sandbox = await load();
  const translating =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await call(...args);
      } catch (error) {
        throw translated(error, sandbox);
      }
    };
  return {
    startSandbox: translating(sandbox.startSandbox),
    loadFaultsFile: translating(sandbox.loadFaultsFile),
    checkForkable: translating((stateDir: string) =>
      Promise.resolve().then(() => sandbox.checkForkable(stateDir)),
    ),
  };
}

/**
 * The sandbox's own error for what stops it from starting or from reading a file it was given: a bad option, an
 * unusable state dir, a faults file with problems. It carries no exit code: the program that starts the sandbox
 * decides what each kind means (the CLI maps them in src/cli/sandbox-package.ts).
 */

/** `usage`: an option or a port that cannot be used; `input`: a file given to the sandbox is wrong; `state`: the state dir */
export type SandboxErrorKind = 'usage' | 'input' | 'state';

/** One problem in a file the sandbox reads (the faults file), with where it is. */
export interface FileProblem {
  file: string;
  /** 1-based */
  line: number;
  col: number;
  /** JSON pointer of the offending value, `""` for the document */
  pointer: string;
  message: string;
  hint?: string | undefined;
  /** what found it: `file`, `yaml`, `faults` */
  rule: string;
}

export class SandboxError extends Error {
  readonly kind: SandboxErrorKind;
  readonly hint: string | undefined;
  /** for `input`: each problem, in file order */
  readonly problems: readonly FileProblem[];

  constructor(
    kind: SandboxErrorKind,
    message: string,
    options: { hint?: string | undefined; cause?: unknown; problems?: readonly FileProblem[] } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SandboxError';
    this.kind = kind;
    this.hint = options.hint;
    this.problems = options.problems ?? [];
  }
}

/** a start-up option or port the sandbox cannot use */
export function usageError(message: string, hint?: string): SandboxError {
  return new SandboxError('usage', message, { hint });
}

/** the state dir holds something the sandbox cannot use */
export function stateError(message: string, hint?: string, cause?: unknown): SandboxError {
  return new SandboxError('state', message, { hint, cause });
}

/** by file, then position, then text */
export function compareProblems(a: FileProblem, b: FileProblem): number {
  return (
    a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col || a.message.localeCompare(b.message)
  );
}

/** a file given to the sandbox has problems */
export function fileProblems(problems: readonly FileProblem[]): SandboxError {
  const n = problems.length;
  return new SandboxError('input', `${n} problem${n === 1 ? '' : 's'} found`, { problems });
}

/**
 * The `ledgerbook state …` command an operator is told to run (`state resolve` after an ambiguous outcome,
 * `state unlock` for a lock left behind), with the real values: the playbook file, the target, the state the run
 * used, the step and item. The engine fills them in from the run's context; steps only say what to check.
 */

/** `ledgerbook state <subcommand> <playbook> [--target …] [state options] <args…>`, quoted for a POSIX shell. */
export type StateCommand = (subcommand: 'resolve' | 'unlock', args?: readonly string[]) => string;

/** A word written for the shell as it is: a reference to an environment variable (`"$LEDGERBOOK_STATE"`). */
export interface ShellExpansion {
  readonly shell: string;
}

/** `"$NAME"`: the value of an environment variable, where the command must not show it (a password). */
export function environmentReference(name: string): ShellExpansion {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not an environment variable name: ${name}`);
  return { shell: `"$${name}"` };
}

export interface StateCommandParts {
  /** the playbook file as the command line named it (or its name) */
  playbook: string;
  /** the target file as the command line named it; omitted for the built-in sandbox (the default) */
  target?: string | undefined;
  /**
   * the options that name the state the run used (`--state-dir DIR`, `--state URL`, or `--state "$LEDGERBOOK_STATE"`
   * for a URL whose password must not be printed)
   */
  state?: readonly (string | ShellExpansion)[];
}

export function stateCommand(parts: StateCommandParts): StateCommand {
  return (subcommand, args = []) =>
    [
      'ledgerbook',
      'state',
      subcommand,
      parts.playbook,
      ...(parts.target === undefined ? [] : ['--target', parts.target]),
      ...(parts.state ?? []),
      ...args,
    ]
      .map((word) => (typeof word === 'string' ? shellWord(word) : word.shell))
      .join(' ');
}

/** The arguments that name one item of a step: `--step S` and, for a fan-out, `--item K`. */
export function itemArgs(step: string, item: string): string[] {
  return ['--step', step, ...(item === '' ? [] : ['--item', item])];
}

/** `word` as one word of a POSIX shell command: as is when it is plain, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

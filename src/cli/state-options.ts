/** The options that name the state a command used, for the commands it tells the operator to run next. */
import { stateUrlSecrets } from '../engine/state/backend.js';
import { STATE_ENV } from '../environment.js';
import { environmentReference, type ShellExpansion } from '../engine/state-command.js';
import type { GlobalOptions } from './output.js';

const DEFAULT_STATE_DIR = '.ledgerbook';

/**
 * `--state-dir DIR` when not the default, and `--state URL` when given on the command line. A URL with a password
 * is named by the environment variable that keeps it off command lines, `--state "$LEDGERBOOK_STATE"` (a command
 * with the password masked could not be pasted, and one with it would print it); see stateFromEnvironment.
 */
export function stateOptions(options: GlobalOptions): (string | ShellExpansion)[] {
  return [
    ...(options.stateDir !== undefined && options.stateDir !== DEFAULT_STATE_DIR
      ? ['--state-dir', options.stateDir]
      : []),
    ...(options.state !== undefined && options.state !== ''
      ? ['--state', stateFromEnvironment(options) ? environmentReference(STATE_ENV) : options.state]
      : []),
  ];
}

/** Whether stateOptions names the `--state` URL by LEDGERBOOK_STATE: it holds a password. */
export function stateFromEnvironment(options: GlobalOptions): boolean {
  const state = options.state;
  return state !== undefined && state !== '' && (!URL.canParse(state) || stateUrlSecrets(state).length > 0);
}

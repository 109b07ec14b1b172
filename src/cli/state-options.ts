/** The options that name the state a command used, for the commands it tells the operator to run next. */
import { maskStateUrl } from '../engine/state/backend.js';
import type { GlobalOptions } from './output.js';

const DEFAULT_STATE_DIR = '.ledgerbook';

/** `--state-dir DIR` when not the default, `--state URL` (password masked) when given on the command line. */
export function stateOptions(options: GlobalOptions): string[] {
  return [
    ...(options.stateDir !== undefined && options.stateDir !== DEFAULT_STATE_DIR
      ? ['--state-dir', options.stateDir]
      : []),
    ...(options.state !== undefined && options.state !== '' ? ['--state', maskStateUrl(options.state)] : []),
  ];
}

import { describe, expect, it } from 'vitest';
import { stateCommand } from '../engine/state-command.js';
import { stateFromEnvironment, stateOptions } from './state-options.js';

describe('the state options of a command the operator is told to run', () => {
  it('name a --state URL with a password by LEDGERBOOK_STATE, and one without as it is', () => {
    const withPassword = { state: 'postgres://lb:s3cret-pass@db/state' };
    const command = stateCommand({ playbook: 'p.yaml', state: stateOptions(withPassword) });
    expect(command('unlock')).toBe('ledgerbook state unlock p.yaml --state "$LEDGERBOOK_STATE"');
    expect(stateFromEnvironment(withPassword)).toBe(true);
    // a password parameter counts too
    expect(stateFromEnvironment({ state: 'postgres://lb@db/state?password=s3cret-pass' })).toBe(true);
    const passwordless = { state: 'postgres://lb@db/state', stateDir: 'ops' };
    expect(stateCommand({ playbook: 'p.yaml', state: stateOptions(passwordless) })('unlock')).toBe(
      'ledgerbook state unlock p.yaml --state-dir ops --state postgres://lb@db/state',
    );
    expect(stateFromEnvironment(passwordless)).toBe(false);
    // the state from the environment needs no option
    expect(stateOptions({})).toEqual([]);
  });
});

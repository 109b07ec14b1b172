import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { environmentReference, itemArgs, shellWord, stateCommand } from './state-command.js';

describe('the state commands an operator is told to run', () => {
  it('name the playbook file, the target file, the state and the item', () => {
    const command = stateCommand({
      playbook: 'playbooks/pay.yaml',
      target: 'targets/testnet.yaml',
      state: ['--state-dir', '/var/lib/ops state'],
    });
    expect(command('resolve', [...itemArgs('pay', 'alice'), '--done'])).toBe(
      "ledgerbook state resolve playbooks/pay.yaml --target targets/testnet.yaml --state-dir '/var/lib/ops state' --step pay --item alice --done",
    );
    expect(stateCommand({ playbook: 'p.yaml' })('unlock')).toBe('ledgerbook state unlock p.yaml');
    expect(itemArgs('mint', '')).toEqual(['--step', 'mint']);
  });

  it('every word reaches the shell as itself, whatever it holds', () => {
    for (const word of ["it's", 'a b', '$(touch x)', '`id`', 'x;y', '"q"', '', 'plain-1.yaml', 'n\nl']) {
      const echoed = execFileSync('sh', ['-c', `printf %s ${shellWord(word)}`], { encoding: 'utf8' });
      expect(echoed).toBe(word);
    }
  });

  it('name a state URL with a password by the environment variable, so that the command can be pasted', () => {
    const command = stateCommand({
      playbook: 'p.yaml',
      state: ['--state', environmentReference('LEDGERBOOK_STATE')],
    });
    expect(command('unlock', ['--id', 'x'])).toBe(
      'ledgerbook state unlock p.yaml --state "$LEDGERBOOK_STATE" --id x',
    );
    const echoed = execFileSync('sh', ['-c', `printf %s ${command('unlock').split(' ').at(-1) ?? ''}`], {
      encoding: 'utf8',
      env: { ...process.env, LEDGERBOOK_STATE: 'postgres://u:p w@db/s' },
    });
    expect(echoed).toBe('postgres://u:p w@db/s');
    expect(() => environmentReference('A; rm')).toThrow();
  });
});

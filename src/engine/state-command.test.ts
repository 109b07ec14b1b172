import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { itemArgs, shellWord, stateCommand } from './state-command.js';

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
});

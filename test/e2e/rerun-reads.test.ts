/**
 * What a no-op rerun of playbooks/mint-and-distribute.yaml asks of the ledger, counted by the sandbox's own request
 * log (`/requests`): once everything is done, a rerun sends nothing and reads the minter's active contracts at most
 * five times — its credentials, its deposit account (one read for the three steps that look at it), and for the
 * distribution its holdings, its pending offers and its settled transfers — instead of once per step and per
 * look (seven), each after a ledger-end read of its own (docs/architecture.md "Reads shared within a run").
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestCounts } from '@ledgerbook/sandbox/testing';
import { PLAYBOOKS, SUBMIT, shippedRecipients, tokenSandbox, type TokenSandbox } from './token-setup.js';

const PLAYBOOK = join(PLAYBOOKS, 'mint-and-distribute.yaml');
const ACTIVE_CONTRACTS = '/v2/state/active-contracts';

let sb: TokenSandbox;
let inputs: string[];

beforeAll(async () => {
  sb = await tokenSandbox();
  const few = (await shippedRecipients()).slice(0, 3);
  const file = await sb.recipients(
    'few.csv',
    few.map((l) => [l.receiver, l.amount, l.reference] as const),
  );
  inputs = ['--input', `recipients=${file}`, '--input', `reports=${join(sb.dir, 'reports')}`];
});
afterAll(() => sb?.stop());

/** Requests to a route since the counters were reset, over every node and method (HTTP and WebSocket). */
async function count(route: string): Promise<number> {
  return (await requestCounts(sb.world)).filter((r) => r.route === route).reduce((n, r) => n + r.count, 0);
}

describe('a no-op rerun of mint-and-distribute', () => {
  it('sends nothing and reads the active contracts of the party at most 5 times', async () => {
    const first = await sb.run(PLAYBOOK, ...inputs);
    expect(first.code, first.stdout + first.stderr).toBe(0);

    await sb.world.admin.call('DELETE', '/requests');
    const again = await sb.run(PLAYBOOK, ...inputs);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toMatch(/Nothing to do/);

    const log = JSON.stringify(await requestCounts(sb.world));
    expect(await count(SUBMIT), log).toBe(0);
    expect(await count(ACTIVE_CONTRACTS), log).toBeLessThanOrEqual(5);
  });
});

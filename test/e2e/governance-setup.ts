/** What the governance e2e tests share: the party set up through the CLI, executions read on the ledger. */
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Api } from '@ledgerbook/sandbox/testing';
import { PLAYBOOKS, output, type PartyWorld } from './party-setup.js';

export const GOVERNANCE = join(PLAYBOOKS, 'governance.yaml');

/** onboard-party, distribute-dars, deploy-contracts, each exit 0; the party's id */
export async function governedThroughCli(w: PartyWorld, extra: string[] = []): Promise<string> {
  const onboard = await w.run(join(PLAYBOOKS, 'onboard-party.yaml'), '--json');
  expect(onboard.code, output(onboard)).toBe(0);
  const dars = await w.run(join(PLAYBOOKS, 'distribute-dars.yaml'));
  expect(dars.code, output(dars)).toBe(0);
  const deploy = await w.run(join(PLAYBOOKS, 'deploy-contracts.yaml'), ...extra);
  expect(deploy.code, output(deploy)).toBe(0);
  const party = (
    await w.world.dpm[0]!.get<{ parties: Array<{ party_id: string }> }>(
      '/decentralized-parties?prefix=alpha&refresh=true',
    )
  ).body.parties[0];
  expect(party).toBeDefined();
  return party!.party_id;
}

interface ChainEntry {
  event_type: string;
  choice?: string;
  details: { action?: { _variant?: string; value?: Record<string, unknown> } };
}

/** the executions of a self action on the ledger, as a node's chain audit shows them */
export async function executionsOf(api: Api, partyId: string, variant: string): Promise<number> {
  const { body } = await api.get<{ entries: ChainEntry[] }>(
    `/governance/chain-audit?party_id=${partyId}&refresh=true&limit=1000`,
  );
  return body.entries.filter(
    (e) => e.choice === 'GovernanceRules_ExecuteGovernanceAction' && e.details.action?._variant === variant,
  ).length;
}

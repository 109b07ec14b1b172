import { declareStep, type StaticFinding } from '../../playbook/step-declaration.js';
import type { Target } from '../../playbook/target.js';
import { withSchema, type With } from './governance-schema.js';
import { Findings, nodesOrControlled } from './party-common.declaration.js';

export function check(w: With, target: Target | undefined): StaticFinding[] {
  const f = new Findings(target);
  const nodes = f.nodes('/nodes', w.nodes);
  nodes.forEach((name, i) => f.controlled(`/nodes/${i}`, name, 'dpm.governance confirms on it'));
  // without a target (validate on the built-in sandbox) the nodes are not known yet
  if (target !== undefined && nodesOrControlled(w.nodes, target).length === 0)
    f.add('', 'the target controls no node to confirm on', 'set `nodes`, or control a member node');
  f.partyRef('/party', w.party);
  return f.list;
}

/** What validation reads of `dpm.governance`; its run-time code is ./governance.ts. */
export const dpmGovernanceDeclaration = declareStep<With>({
  kind: 'dpm.governance',
  summary:
    'A governance decision of a decentralized party (ActionType or ProposalType): propose it once, confirm it on the member nodes this target controls, execute it at the threshold — each exactly once.',
  withSchema,
  outputs: {
    party_id: 'the decentralized party',
    decision: 'the declared action or proposal, in words',
    status: 'how it is in effect (e.g. `the threshold is 3`, `executed at offset …`)',
    executed_by:
      'the node of this target that executed it (empty when another member did, or it was in effect already)',
  },
  needsTarget: true,
  check,
});

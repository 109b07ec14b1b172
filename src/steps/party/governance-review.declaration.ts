import { declareStep, type StaticFinding } from '../../playbook/step-declaration.js';
import type { Target } from '../../playbook/target.js';
import { withSchema, type With } from './governance-review-schema.js';
import { Findings, isExpression, nodesOrControlled } from './party-common.declaration.js';

export function check(w: With, target: Target | undefined): StaticFinding[] {
  const f = new Findings(target);
  const nodes = f.nodes('/nodes', w.nodes);
  nodes.forEach((name, i) => f.controlled(`/nodes/${i}`, name, 'dpm.governance-review confirms on it'));
  // without a target (validate on the built-in sandbox) the nodes are not known yet
  if (target !== undefined && nodesOrControlled(w.nodes, target).length === 0)
    f.add('', 'the target controls no node to confirm on', 'set `nodes`, or control a member node');
  f.partyRef('/party', w.party);
  (w.policy.proposals ?? []).forEach((rule, i) => {
    if (typeof rule.description === 'string' && !isExpression(rule.description)) {
      try {
        new RegExp(rule.description);
      } catch (error) {
        f.add(`/policy/proposals/${i}/description`, `not a regular expression: ${(error as Error).message}`);
      }
    }
  });
  return f.list;
}

/** What validation reads of `dpm.governance-review`; its run-time code is ./governance-review.ts. */
export const dpmGovernanceReviewDeclaration = declareStep<With>({
  kind: 'dpm.governance-review',
  summary:
    'The co-operators’ review of a party’s pending governance: confirm what a declared policy names on this target’s member nodes, report the rest, never confirm what the policy does not name.',
  withSchema,
  outputs: {
    party_id: 'the decentralized party',
    confirmed: 'the decisions this run confirmed',
    proposed: 'the mint and burn request acceptances this run proposed',
    executed: 'the decisions this run executed',
    reported: 'the pending decisions not confirmed, each with why [{decision, why}]',
  },
  needsTarget: true,
  check,
});

/**
 * dpm.change-threshold — set a decentralized party's threshold (dpm-api.md §5.4). In sync when the threshold is
 * as declared. Every other member accepts.
 */
import { defineStep } from '../contract.js';
import { dpmChangeThresholdDeclaration, type With } from './change-threshold.declaration.js';
import {
  applyMembership,
  observeMembership,
  planMembership,
  type MembershipKind,
  type MembershipState,
} from './membership.js';
import { membersOf } from './party-common.js';
import { reconcileStart } from './workflow-lifecycle.js';

const current = (s: MembershipState): string[] => membersOf(s.party);

export const changeThresholdSpec: MembershipKind<With> = {
  kind: 'ChangeThreshold',
  describe: (w, _name, s) => `set the threshold of ${s.partyId} to ${w.threshold}`,
  membersAfter: current,
  precondition(w, s) {
    const members = current(s);
    if (!members.includes(s.coordinatorId)) return `${w.coordinator} is not a member`;
    if (members.length < 2) return `the party has only ${members.length} member`;
    if (w.threshold > members.length)
      return `threshold ${w.threshold} is more than the ${members.length} members`;
    return undefined;
  },
  sameChange: (run, w) => run.new_threshold === w.threshold,
  invitees: (s) => current(s).filter((p) => p !== s.coordinatorId),
  start: (dpm, w, s, signal) =>
    dpm.startChangeThreshold(
      {
        decentralized_party_id: s.partyId,
        new_threshold: w.threshold,
        previous_threshold: s.party.threshold,
      },
      { signal },
    ),
};

export const dpmChangeThreshold = defineStep<With, MembershipState>({
  ...dpmChangeThresholdDeclaration,
  observe: (ctx, w) => observeMembership(changeThresholdSpec, ctx, w),
  plan: (w, s) => planMembership(changeThresholdSpec, w, s),
  apply: (ctx, w, _item, _plan, s) => applyMembership(changeThresholdSpec, ctx, w, s),
  reconcile: (ctx, _w, _item, intents) => reconcileStart(ctx, intents),
});

/**
 * dpm.add-party — add a participant to a decentralized party and set the new threshold (dpm-api.md §5.3). In sync
 * when the participant is a member and the threshold is as declared. The existing members and the new one accept.
 */
import { defineStep } from '../contract.js';
import { dpmAddPartyDeclaration, type With } from './add-party.declaration.js';
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

export const addPartySpec: MembershipKind<With> = {
  kind: 'AddParty',
  describe: (w, name, s) => `add ${name(s.memberId ?? w.member)} to ${s.partyId} (threshold ${w.threshold})`,
  membersAfter: (s) => [...current(s).filter((p) => p !== s.memberId), ...(s.memberId ? [s.memberId] : [])],
  precondition(w, s, name) {
    const members = current(s);
    if (!members.includes(s.coordinatorId))
      return `${w.coordinator} is not a member; only a member can add one`;
    if (s.memberId !== undefined && !s.peers.includes(s.memberId))
      return `${name(s.memberId)} is not in ${w.coordinator}'s peers table (run dpm.network with it first)`;
    if (w.threshold > members.length + 1)
      return `threshold ${w.threshold} is more than the ${members.length + 1} members with the new one`;
    return undefined;
  },
  sameChange: (run, w, s) => run.added_participant === s.memberId && run.new_threshold === w.threshold,
  invitees: (s) => [
    ...current(s).filter((p) => p !== s.coordinatorId && s.peers.includes(p)),
    ...(s.memberId ? [s.memberId] : []),
  ],
  start: (dpm, w, s, signal) =>
    dpm.startAddParty(
      {
        decentralized_party_id: s.partyId,
        new_participant_id: s.memberId ?? w.member,
        new_threshold: w.threshold,
        previous_threshold: s.party.threshold,
      },
      { signal },
    ),
};

export const dpmAddParty = defineStep<With, MembershipState>({
  ...dpmAddPartyDeclaration,
  observe: (ctx, w) => observeMembership(addPartySpec, ctx, w),
  plan: (w, s) => planMembership(addPartySpec, w, s),
  apply: (ctx, w, _item, _plan, s) => applyMembership(addPartySpec, ctx, w, s),
  reconcile: (ctx, _w, _item, intents) => reconcileStart(ctx, intents),
});

/**
 * dpm.kick — remove a member from a decentralized party and set the new threshold (dpm-api.md §5.2). In sync when
 * the participant is no longer a member and the threshold is as declared. The removed member is not invited; the
 * survivors accept.
 */
import { defineStep } from '../contract.js';
import { dpmKickDeclaration, type With } from './kick.declaration.js';
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

export const kickSpec: MembershipKind<With> = {
  kind: 'Kick',
  describe: (w, name, s) =>
    `remove ${name(s.memberId ?? w.member)} from ${s.partyId} (threshold ${w.threshold})`,
  membersAfter: (s) => current(s).filter((p) => p !== s.memberId),
  precondition(w, s, name) {
    const members = current(s);
    if (!members.includes(s.coordinatorId)) return `${w.coordinator} is not a member`;
    if (s.memberId !== undefined && !s.peers.includes(s.memberId))
      return `${name(s.memberId)} is not in ${w.coordinator}'s peers table (dpm.network)`;
    if (members.length < 2) return `the party has only ${members.length} member`;
    if (w.threshold > members.length - 1)
      return `threshold ${w.threshold} is more than the ${members.length - 1} members that remain`;
    return undefined;
  },
  sameChange: (run, w, s) => run.kicked_participant === s.memberId && run.new_threshold === w.threshold,
  invitees: (s) => current(s).filter((p) => p !== s.coordinatorId && p !== s.memberId && s.peers.includes(p)),
  start: (dpm, w, s, signal) =>
    dpm.startKick(
      {
        decentralized_party_id: s.partyId,
        participant_id: s.memberId ?? w.member,
        new_threshold: w.threshold,
        previous_threshold: s.party.threshold,
      },
      { signal },
    ),
};

export const dpmKick = defineStep<With, MembershipState>({
  ...dpmKickDeclaration,
  observe: (ctx, w) => observeMembership(kickSpec, ctx, w),
  plan: (w, s) => planMembership(kickSpec, w, s),
  apply: (ctx, w, _item, _plan, s) => applyMembership(kickSpec, ctx, w, s),
  reconcile: (ctx, _w, _item, intents) => reconcileStart(ctx, intents),
});

/**
 * What the declarations of kick, add-party and change-threshold share: the schema pieces of their `with` blocks,
 * their outputs and their static check, with nothing of their run-time code.
 */
import type { StaticFinding } from '../../playbook/step-declaration.js';
import type { Target } from '../../playbook/target.js';
import {
  Findings,
  nodeNameSchema,
  partyRefSchema,
  thresholdSchema,
  timeoutSchema,
} from './party-common.declaration.js';

export const MEMBERSHIP_TIMEOUT = '15m';

/** The `with` fields the three kinds share. */
export const membershipProperties = {
  coordinator: nodeNameSchema(
    'The member node that coordinates the change (its DPM starts the workflow). When this target does not control it, its operator starts the run and this step follows it: it accepts on the invitees this target controls and waits.',
  ),
  party: partyRefSchema,
  timeout: timeoutSchema(MEMBERSHIP_TIMEOUT, 'the workflow to complete and every member to see the result'),
} as const;

export const memberSchema = (description: string) =>
  ({
    type: 'string',
    minLength: 1,
    description: `${description} A node name of the target, or a participant id \`<name>::<68 hex>\` for a node of another operator.`,
  }) as const;

export const newThresholdSchema = thresholdSchema;

export interface MembershipWith {
  coordinator: string;
  party: string;
  member?: string;
  threshold: number;
  timeout?: string | number;
}

/** Static checks the three kinds share. */
export function membershipCheck(w: MembershipWith, target: Target | undefined): StaticFinding[] {
  const f = new Findings(target);
  f.node('/coordinator', w.coordinator);
  f.partyRef('/party', w.party);
  if (w.member !== undefined) {
    f.member('/member', w.member);
    if (w.member === w.coordinator)
      f.add('/member', 'the member is the coordinator', 'choose another coordinator');
  }
  return f.list;
}

export const membershipOutputs = {
  party_id: 'the party id',
  threshold: 'the party’s threshold after the change',
  members: 'the members’ participant ids after the change',
} as const;

/**
 * The governance rules of a decentralized party on the ledger (governance-core `Governance.Rules`): the rules
 * contract (members, threshold, confirmation timeout, additional proposers), the members' confirmations of a
 * self-management action (GovernanceSelfConfirmation) or of a domain proposal (GovernanceConfirmation), and the
 * record of an executed proposal (GovernanceExecutionResult).
 *
 * As dpm-api.md §11 says, every confirm and every execute consumes the rules contract and creates it again, so
 * its id changes: a client re-reads it before each consuming choice. Confirmations expire after the rules'
 * timeout; an execution consumes the confirmations it names (each must still be valid), counts only distinct
 * members, and needs the threshold.
 */
import { T, formatTime, parseTime, type LfType } from '../ledger/lf.js';
import { type Contract, type TemplateDef, template, unique } from '../ledger/model.js';
import type { ChoiceContext } from '../ledger/model.js';
import { GOV_PKG } from './packages.js';
import { GovernableActionI, type GovernableActionView } from './proposals.js';

export interface PartySet {
  map: Array<[string, Record<string, never>]>;
}

export const PartySetT = T.record('Set', { map: T.genmap(T.party, T.unit) });

export function partySet(parties: Iterable<string>): PartySet {
  return { map: unique(parties).map((p) => [p, {}]) };
}

export function partiesOf(set: PartySet | null): string[] {
  return set === null ? [] : set.map.map(([p]) => p);
}

export interface RelTime {
  microseconds: string;
}

/** `GovernanceSelfAction`, as the LF variant `{tag, value}` */
export type SelfAction =
  | { tag: 'SelfAction_AddMemberAndSetThreshold'; value: { newMember: string; newThresholdAfterAdd: string } }
  | {
      tag: 'SelfAction_RemoveMemberAndSetThreshold';
      value: { removedMember: string; newThresholdAfterRemove: string };
    }
  | { tag: 'SelfAction_SetThreshold'; value: { updatedThreshold: string } }
  | { tag: 'SelfAction_SetTimeout'; value: { updatedTimeout: RelTime } }
  | { tag: 'SelfAction_AddAdditionalProposer'; value: { additionalProposer: string } }
  | { tag: 'SelfAction_RemoveAdditionalProposer'; value: { additionalProposer: string } };

export const SelfActionT: LfType = T.variant('GovernanceSelfAction', () => ({
  SelfAction_AddMemberAndSetThreshold: T.record('SelfAction_AddMemberAndSetThreshold', {
    newMember: T.party,
    newThresholdAfterAdd: T.int,
  }),
  SelfAction_RemoveMemberAndSetThreshold: T.record('SelfAction_RemoveMemberAndSetThreshold', {
    removedMember: T.party,
    newThresholdAfterRemove: T.int,
  }),
  SelfAction_SetThreshold: T.record('SelfAction_SetThreshold', { updatedThreshold: T.int }),
  SelfAction_SetTimeout: T.record('SelfAction_SetTimeout', { updatedTimeout: T.reltime }),
  SelfAction_AddAdditionalProposer: T.record('SelfAction_AddAdditionalProposer', {
    additionalProposer: T.party,
  }),
  SelfAction_RemoveAdditionalProposer: T.record('SelfAction_RemoveAdditionalProposer', {
    additionalProposer: T.party,
  }),
}));

export interface RulesArg {
  governanceParty: string;
  members: PartySet;
  threshold: string;
  actionConfirmationTimeout: RelTime;
  additionalProposers: PartySet | null;
}

export const RulesT = T.record('GovernanceRules', {
  governanceParty: T.party,
  members: PartySetT,
  threshold: T.int,
  actionConfirmationTimeout: T.reltime,
  additionalProposers: T.optional(PartySetT),
});

const TEN_SECONDS = 10_000_000;

function rulesProblem(a: RulesArg): string | undefined {
  const members = partiesOf(a.members).length;
  const threshold = Number(a.threshold);
  if (members === 0) return 'members must not be empty';
  if (threshold < 1 || threshold > members)
    return `threshold ${threshold} must be between 1 and the member count ${members}`;
  if (Number(a.actionConfirmationTimeout.microseconds) < TEN_SECONDS)
    return 'actionConfirmationTimeout must be at least 10 seconds';
  return undefined;
}

function isMember(rules: RulesArg, party: string): boolean {
  return partiesOf(rules.members).includes(party);
}

function mayPropose(rules: RulesArg, party: string): boolean {
  return isMember(rules, party) || partiesOf(rules.additionalProposers).includes(party);
}

function expiry(tx: ChoiceContext, rules: RulesArg): string {
  return formatTime(tx.now + Number(rules.actionConfirmationTimeout.microseconds));
}

function validThreshold(tx: ChoiceContext, memberCount: number, threshold: number): void {
  tx.require(threshold >= 1, 'Threshold must be at least 1');
  tx.require(threshold <= memberCount, 'Threshold cannot exceed member count');
}

/** the rules after a self-management action, checked as governance-core checks each change */
function applySelfAction(tx: ChoiceContext, rules: RulesArg, action: SelfAction): RulesArg {
  const members = partiesOf(rules.members);
  const proposers = partiesOf(rules.additionalProposers);
  switch (action.tag) {
    case 'SelfAction_AddMemberAndSetThreshold': {
      const { newMember, newThresholdAfterAdd } = action.value;
      tx.require(!members.includes(newMember), 'Not yet a member');
      tx.require(!proposers.includes(newMember), 'Member must not also be an additional proposer');
      validThreshold(tx, members.length + 1, Number(newThresholdAfterAdd));
      return { ...rules, members: partySet([...members, newMember]), threshold: newThresholdAfterAdd };
    }
    case 'SelfAction_RemoveMemberAndSetThreshold': {
      const { removedMember, newThresholdAfterRemove } = action.value;
      tx.require(members.includes(removedMember), 'Is a member');
      const rest = members.filter((m) => m !== removedMember);
      tx.require(rest.length > 0, 'Cannot remove last member');
      validThreshold(tx, rest.length, Number(newThresholdAfterRemove));
      return { ...rules, members: partySet(rest), threshold: newThresholdAfterRemove };
    }
    case 'SelfAction_SetThreshold':
      validThreshold(tx, members.length, Number(action.value.updatedThreshold));
      return { ...rules, threshold: action.value.updatedThreshold };
    case 'SelfAction_SetTimeout':
      tx.require(
        Number(action.value.updatedTimeout.microseconds) >= TEN_SECONDS,
        'Timeout must be at least 10 seconds',
      );
      return { ...rules, actionConfirmationTimeout: action.value.updatedTimeout };
    case 'SelfAction_AddAdditionalProposer': {
      const p = action.value.additionalProposer;
      tx.require(!proposers.includes(p), 'Already an additional proposer');
      tx.require(!members.includes(p), 'Additional proposer must not also be a member');
      return { ...rules, additionalProposers: partySet([...proposers, p]) };
    }
    case 'SelfAction_RemoveAdditionalProposer': {
      const p = action.value.additionalProposer;
      tx.require(proposers.includes(p), 'Not an additional proposer');
      const rest = proposers.filter((x) => x !== p);
      return { ...rules, additionalProposers: rest.length === 0 ? null : partySet(rest) };
    }
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function micros(time: string): number {
  return parseTime(time) ?? 0;
}

// ---- confirmations ----------------------------------------------------------------------------------------------

export interface SelfConfirmationArg {
  governanceParty: string;
  confirmer: string;
  action: SelfAction;
  expiresAt: string;
}

const consumeChoice = <A extends { governanceParty: string; expiresAt: string }>(what: string) => ({
  argType: T.record('Consume', {}),
  consuming: true,
  controllers: (a: A) => [a.governanceParty],
  body: (tx: ChoiceContext, self: Contract<A>) => {
    tx.require(tx.now < micros(self.arg.expiresAt), `${what} has expired`);
    return self.arg;
  },
});

const expireChoice = <A extends { governanceParty: string; expiresAt: string }>(what: string) => ({
  argType: T.record('Expire', {}),
  consuming: true,
  controllers: (a: A) => [a.governanceParty],
  body: (tx: ChoiceContext, self: Contract<A>) => {
    tx.require(tx.now > micros(self.arg.expiresAt), `${what} has not expired yet`);
    return {};
  },
});

const cancelChoice = <A extends { confirmer: string }>() => ({
  argType: T.record('Cancel', {}),
  consuming: true,
  controllers: (a: A) => [a.confirmer],
  body: () => ({}),
});

export const GovernanceSelfConfirmation = template<SelfConfirmationArg>({
  pkg: GOV_PKG.core,
  name: { module: 'Governance.Rules', entity: 'GovernanceSelfConfirmation' },
  argType: T.record('GovernanceSelfConfirmation', {
    governanceParty: T.party,
    confirmer: T.party,
    action: SelfActionT,
    expiresAt: T.time,
  }),
  signatories: (a) => unique([a.confirmer, a.governanceParty]),
  observers: () => [],
  choices: {
    GovernanceSelfConfirmation_Consume: consumeChoice<SelfConfirmationArg>('Self-confirmation'),
    GovernanceSelfConfirmation_Expire: expireChoice<SelfConfirmationArg>('Self-confirmation'),
    GovernanceSelfConfirmation_Cancel: cancelChoice<SelfConfirmationArg>(),
  },
});

export interface ConfirmationArg {
  governanceParty: string;
  confirmer: string;
  actionProposalCid: string;
  actionLabel: string;
  expiresAt: string;
}

export const GovernanceConfirmation = template<ConfirmationArg>({
  pkg: GOV_PKG.core,
  name: { module: 'Governance.Confirmation', entity: 'GovernanceConfirmation' },
  argType: T.record('GovernanceConfirmation', {
    governanceParty: T.party,
    confirmer: T.party,
    actionProposalCid: T.cid,
    actionLabel: T.text,
    expiresAt: T.time,
  }),
  signatories: (a) => unique([a.confirmer, a.governanceParty]),
  observers: () => [],
  ensure: (a) => (a.actionLabel === '' ? 'actionLabel must not be empty' : undefined),
  choices: {
    GovernanceConfirmation_Consume: consumeChoice<ConfirmationArg>('Confirmation'),
    GovernanceConfirmation_Expire: expireChoice<ConfirmationArg>('Confirmation'),
    GovernanceConfirmation_Cancel: cancelChoice<ConfirmationArg>(),
  },
});

export interface ExecutionResultArg {
  governanceParty: string;
  actionLabel: string;
  description: string;
  executor: string;
  confirmers: string[];
  executedAt: string;
}

export const GovernanceExecutionResult = template<ExecutionResultArg>({
  pkg: GOV_PKG.core,
  name: { module: 'Governance.ExecutionResult', entity: 'GovernanceExecutionResult' },
  argType: T.record('GovernanceExecutionResult', {
    governanceParty: T.party,
    actionLabel: T.text,
    description: T.text,
    executor: T.party,
    confirmers: T.list(T.party),
    executedAt: T.time,
  }),
  signatories: (a) => [a.governanceParty],
  observers: () => [],
});

// ---- the rules --------------------------------------------------------------------------------------------------

/** consumes the confirmations an execution names; the valid ones' confirmers, each once, must meet the threshold */
function consumeConfirmations<A extends { confirmer: string; expiresAt: string }>(
  tx: ChoiceContext,
  rules: RulesArg,
  cids: string[],
  choice: string,
  matches: (confirmation: A) => boolean,
  mismatch: string,
): string[] {
  const fetched = cids.map((cid) => tx.exercise(cid, choice, {}) as A);
  const valid = fetched.filter((c) => micros(c.expiresAt) > tx.now);
  tx.require(valid.every(matches), mismatch);
  const voters = valid.map((c) => c.confirmer).filter((p) => isMember(rules, p));
  tx.require(new Set(voters).size === voters.length, 'No duplicate member confirmers');
  tx.require(voters.length >= Number(rules.threshold), 'Enough member confirmations to execute action');
  return voters;
}

export const GovernanceRules: TemplateDef<RulesArg> = template<RulesArg>({
  pkg: GOV_PKG.core,
  name: { module: 'Governance.Rules', entity: 'GovernanceRules' },
  argType: RulesT,
  signatories: (a) => [a.governanceParty],
  // members are not observers: they see the rules by hosting the governance party (readAs)
  observers: () => [],
  ensure: rulesProblem,
  choices: {
    GovernanceRules_ConfirmGovernanceAction: {
      argType: T.record('GovernanceRules_ConfirmGovernanceAction', {
        confirmer: T.party,
        action: SelfActionT,
      }),
      consuming: true,
      controllers: (_a, arg: { confirmer: string }) => [arg.confirmer],
      body: (tx, self, arg: { confirmer: string; action: SelfAction }) => {
        tx.require(mayPropose(self.arg, arg.confirmer), 'Confirmer is a member or additional proposer');
        const confirmationCid = tx.create(GovernanceSelfConfirmation, {
          governanceParty: self.arg.governanceParty,
          confirmer: arg.confirmer,
          action: arg.action,
          expiresAt: expiry(tx, self.arg),
        });
        const governanceRulesCid = tx.create(GovernanceRules, self.arg);
        return { confirmationCid, governanceRulesCid };
      },
    },
    GovernanceRules_ExecuteGovernanceAction: {
      argType: T.record('GovernanceRules_ExecuteGovernanceAction', {
        executor: T.party,
        action: SelfActionT,
        confirmations: T.list(T.cid),
      }),
      consuming: true,
      controllers: (_a, arg: { executor: string }) => [arg.executor],
      body: (tx, self, arg: { executor: string; action: SelfAction; confirmations: string[] }) => {
        tx.require(isMember(self.arg, arg.executor), 'Executor is a governance member');
        consumeConfirmations<SelfConfirmationArg>(
          tx,
          self.arg,
          arg.confirmations,
          'GovernanceSelfConfirmation_Consume',
          (c) => sameValue(c.action, arg.action),
          'All confirmations must match the action being executed',
        );
        const governanceRulesCid = tx.create(GovernanceRules, applySelfAction(tx, self.arg, arg.action));
        return { governanceRulesCid };
      },
    },
    GovernanceRules_ExpireGovernanceSelfConfirmation: {
      argType: T.record('GovernanceRules_ExpireGovernanceSelfConfirmation', {
        member: T.party,
        staleConfirmationCid: T.cid,
      }),
      consuming: false,
      controllers: (_a, arg: { member: string }) => [arg.member],
      body: (tx, self, arg: { member: string; staleConfirmationCid: string }) => {
        tx.require(isMember(self.arg, arg.member), 'Only governance members can expire confirmations');
        return tx.exercise(arg.staleConfirmationCid, 'GovernanceSelfConfirmation_Expire', {});
      },
    },
    GovernanceRules_ConfirmAction: {
      argType: T.record('GovernanceRules_ConfirmAction', { confirmer: T.party, actionProposalCid: T.cid }),
      consuming: true,
      controllers: (_a, arg: { confirmer: string }) => [arg.confirmer],
      body: (tx, self, arg: { confirmer: string; actionProposalCid: string }) => {
        tx.require(isMember(self.arg, arg.confirmer), 'Confirmer is a governance member');
        const proposal = tx.fetch(arg.actionProposalCid, GovernableActionI, 'action proposal');
        const view = tx.view<GovernableActionView>(proposal, GovernableActionI);
        tx.require(view.governanceParty === self.arg.governanceParty, 'Proposal targets this governance');
        tx.require(
          mayPropose(self.arg, view.proposer),
          'Proposer is authorized (member or additional proposer)',
        );
        const confirmationCid = tx.create(GovernanceConfirmation, {
          governanceParty: self.arg.governanceParty,
          confirmer: arg.confirmer,
          actionProposalCid: arg.actionProposalCid,
          actionLabel: view.actionLabel,
          expiresAt: expiry(tx, self.arg),
        });
        const governanceRulesCid = tx.create(GovernanceRules, self.arg);
        return { confirmationCid, governanceRulesCid };
      },
    },
    GovernanceRules_ExecuteConfirmedAction: {
      argType: T.record('GovernanceRules_ExecuteConfirmedAction', {
        executor: T.party,
        actionProposalCid: T.cid,
        confirmations: T.list(T.cid),
      }),
      consuming: true,
      controllers: (_a, arg: { executor: string }) => [arg.executor],
      body: (tx, self, arg: { executor: string; actionProposalCid: string; confirmations: string[] }) => {
        tx.require(isMember(self.arg, arg.executor), 'Executor is a governance member');
        const confirmers = consumeConfirmations<ConfirmationArg>(
          tx,
          self.arg,
          arg.confirmations,
          'GovernanceConfirmation_Consume',
          (c) => c.actionProposalCid === arg.actionProposalCid,
          'All confirmations must reference the same proposal',
        );
        const proposal = tx.fetch(arg.actionProposalCid, GovernableActionI, 'action proposal');
        const view = tx.view<GovernableActionView>(proposal, GovernableActionI);
        tx.exercise(arg.actionProposalCid, 'GovernableAction_Execute', {}, GovernableActionI);
        const executionResultCid = tx.create(GovernanceExecutionResult, {
          governanceParty: self.arg.governanceParty,
          actionLabel: view.actionLabel,
          description: view.description,
          executor: arg.executor,
          confirmers,
          executedAt: formatTime(tx.now),
        });
        const governanceRulesCid = tx.create(GovernanceRules, self.arg);
        return { executionResultCid, governanceRulesCid };
      },
    },
    GovernanceRules_ExpireConfirmation: {
      argType: T.record('GovernanceRules_ExpireConfirmation', {
        member: T.party,
        staleConfirmationCid: T.cid,
      }),
      consuming: false,
      controllers: (_a, arg: { member: string }) => [arg.member],
      body: (tx, self, arg: { member: string; staleConfirmationCid: string }) => {
        tx.require(isMember(self.arg, arg.member), 'Only governance members can expire confirmations');
        return tx.exercise(arg.staleConfirmationCid, 'GovernanceConfirmation_Expire', {});
      },
    },
  },
});

export const GOVERNANCE_RULES_TEMPLATES = [
  GovernanceRules,
  GovernanceSelfConfirmation,
  GovernanceConfirmation,
  GovernanceExecutionResult,
];

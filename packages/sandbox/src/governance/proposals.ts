/**
 * Domain proposals of a governance party (dpm-api.md §11 `ProposalType`): each is a contract the proposer signs,
 * with the governance party as observer, implementing `Governance.Action:GovernableAction`; the rules' execute
 * choice exercises `GovernableAction_Execute` once enough members confirmed it. The sandbox runs three of them: a
 * generic vote (no effect beyond the execution record), and accepting a holder's mint or burn request of an
 * instrument the governance party registers.
 */
import { T } from '../ledger/lf.js';
import { iface, template, type Contract, type ChoiceBody } from '../ledger/model.js';
import type { ChoiceContext } from '../ledger/model.js';
import { CONTEXT, MetadataT, tagged, type Metadata } from '../token/types.js';
import { GOV_PKG } from './packages.js';

export interface GovernableActionView {
  governanceParty: string;
  proposer: string;
  actionLabel: string;
  description: string;
}

const unitChoice = (name: string) => T.record(name, {});

export const GovernableActionI = iface({
  pkg: GOV_PKG.action,
  name: { module: 'Governance.Action', entity: 'GovernableAction' },
  choices: {
    GovernableAction_Execute: {
      argType: unitChoice('GovernableAction_Execute'),
      consuming: true,
      controllers: (view: GovernableActionView) => [view.governanceParty],
    },
    GovernableAction_Cancel: {
      argType: unitChoice('GovernableAction_Cancel'),
      consuming: true,
      controllers: (view: GovernableActionView) => [view.governanceParty],
    },
    GovernableAction_ProposerCancel: {
      argType: unitChoice('GovernableAction_ProposerCancel'),
      consuming: true,
      controllers: (view: GovernableActionView) => [view.proposer],
    },
  },
});

interface ProposalBase {
  governanceParty: string;
  proposer: string;
  description: string;
}

/** a proposal template: signed by its proposer, seen by the governance party, executed through the interface */
function proposal<A extends ProposalBase>(definition: {
  pkg: (typeof GOV_PKG)[keyof typeof GOV_PKG];
  module: string;
  entity: string;
  label: string;
  fields: Record<string, Parameters<typeof T.list>[0]>;
  ensure?: (arg: A) => string | undefined;
  execute: (tx: ChoiceContext, self: Contract<A>) => unknown;
}) {
  const nothing: ChoiceBody<A> = () => ({});
  return template<A>({
    pkg: definition.pkg,
    name: { module: definition.module, entity: definition.entity },
    argType: T.record(definition.entity, {
      governanceParty: T.party,
      proposer: T.party,
      ...definition.fields,
      description: T.text,
    }),
    signatories: (a) => [a.proposer],
    observers: (a) => [a.governanceParty],
    ...(definition.ensure ? { ensure: definition.ensure } : {}),
    implements: [
      {
        iface: GovernableActionI,
        view: (a): GovernableActionView => ({
          governanceParty: a.governanceParty,
          proposer: a.proposer,
          actionLabel: definition.label,
          description: a.description,
        }),
        choices: {
          GovernableAction_Execute: (tx: ChoiceContext, self: Contract<A>) => {
            definition.execute(tx, self);
            return {};
          },
          GovernableAction_Cancel: nothing,
          GovernableAction_ProposerCancel: nothing,
        },
      },
    ],
  });
}

export type GenericVoteArg = ProposalBase;

export const GenericVoteProposal = proposal<GenericVoteArg>({
  pkg: GOV_PKG.core,
  module: 'Governance.GenericVote',
  entity: 'GenericVoteProposal',
  label: 'GenericVote',
  fields: {},
  execute: () => undefined,
});

export interface AcceptRequestArg extends ProposalBase {
  instrumentConfigurationCid: string;
  extraArgsMeta: Metadata;
  issuerCredentialCids: string[] | null;
}

export interface AcceptMintRequestArg extends AcceptRequestArg {
  mintRequestCid: string;
}

export interface AcceptBurnRequestArg extends AcceptRequestArg {
  burnRequestCid: string;
}

const acceptFields = {
  instrumentConfigurationCid: T.cid,
  extraArgsMeta: MetadataT,
  issuerCredentialCids: T.optional(T.list(T.cid)),
};

function requestContext(a: AcceptRequestArg): unknown {
  return {
    context: {
      values: {
        [CONTEXT.instrumentConfiguration]: tagged('AV_ContractId', a.instrumentConfigurationCid),
        [CONTEXT.issuerCredentials]: tagged(
          'AV_List',
          (a.issuerCredentialCids ?? []).map((cid) => tagged('AV_ContractId', cid)),
        ),
      },
    },
    meta: a.extraArgsMeta,
  };
}

export const AcceptMintRequest = proposal<AcceptMintRequestArg>({
  pkg: GOV_PKG.utilityOnboarding,
  module: 'Governance.TokenIssuance.AcceptMintRequest',
  entity: 'AcceptMintRequest',
  label: 'AcceptMintRequest',
  fields: { mintRequestCid: T.cid, ...acceptFields },
  execute: (tx, self) =>
    tx.exercise(self.arg.mintRequestCid, 'MintRequest_Accept', { extraArgs: requestContext(self.arg) }),
});

export const AcceptBurnRequest = proposal<AcceptBurnRequestArg>({
  pkg: GOV_PKG.utilityOnboarding,
  module: 'Governance.TokenIssuance.AcceptBurnRequest',
  entity: 'AcceptBurnRequest',
  label: 'AcceptBurnRequest',
  fields: { burnRequestCid: T.cid, ...acceptFields },
  execute: (tx, self) =>
    tx.exercise(self.arg.burnRequestCid, 'BurnRequest_Accept', { extraArgs: requestContext(self.arg) }),
});

export const PROPOSAL_TEMPLATES = [GenericVoteProposal, AcceptMintRequest, AcceptBurnRequest];

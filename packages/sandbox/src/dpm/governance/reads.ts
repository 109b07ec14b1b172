/**
 * What the DPM reads from the ledger for a decentralized party (dpm-api.md §11, §12), as the party sees it: the
 * governance rules and their state, the confirmations grouped by action (self-management) or by proposal (domain
 * actions), and the registry's and token's contracts that concern the party. Every function takes the parties
 * the read may see (readAs) and the ledger; the routes decide what a failed read answers.
 */
import { Decimal } from 'decimal.js';
import type { Contract } from '../../ledger/model.js';
import type { Ledger } from '../../ledger/ledger.js';
import { findImplementation } from '../../ledger/tx.js';
import { GovernableActionI, type GovernableActionView } from '../../governance/proposals.js';
import {
  GovernanceConfirmation,
  GovernanceRules,
  GovernanceSelfConfirmation,
  partiesOf,
  type ConfirmationArg,
  type RulesArg,
  type SelfConfirmationArg,
} from '../../governance/rules.js';
import { Credential, CredentialOffer, UserService } from '../../token/credentials.js';
import { Factory } from '../../token/factory.js';
import { Holding } from '../../token/holding.js';
import { BurnRequest, MintRequest, type MintPayload } from '../../token/requests.js';
import { InstrumentConfiguration, TransferOffer, TransferPreapproval } from '../../token/transfer.js';
import { micros as timeMicros } from '../../token/types.js';
import { DOMAIN_PLACEHOLDER_ACTION, actionHash, actionTypeOf } from './actions.js';
import type { ActionType } from './wire.js';

const seconds = (micros: number): number => Math.floor(micros / 1_000_000);

function visible(contract: Contract, parties: string[]): boolean {
  const stakeholders = [
    ...contract.template.signatories(contract.arg),
    ...contract.template.observers(contract.arg),
  ];
  return stakeholders.some((p) => parties.includes(p));
}

function* of<A>(ledger: Ledger, template: Parameters<Ledger['contractsOfTemplate']>[0], parties: string[]) {
  for (const c of ledger.contractsOfTemplate(template)) if (visible(c, parties)) yield c as Contract<A>;
}

/** the party's active GovernanceRules contract */
export function activeRules(
  ledger: Ledger,
  parties: string[],
  partyId: string,
): Contract<RulesArg> | undefined {
  for (const c of of<RulesArg>(ledger, GovernanceRules, parties))
    if (c.arg.governanceParty === partyId) return c;
  return undefined;
}

export interface GovernanceStateWire {
  contract_id: string;
  vault_manager: string;
  members: string[];
  threshold: number;
  action_confirmation_timeout_microseconds?: number;
  package_ref?: string;
  out_of_date: boolean;
}

export function governanceState(rules: Contract<RulesArg>): GovernanceStateWire {
  return {
    contract_id: rules.cid,
    vault_manager: rules.arg.governanceParty,
    members: partiesOf(rules.arg.members),
    threshold: Number(rules.arg.threshold),
    action_confirmation_timeout_microseconds: Number(rules.arg.actionConfirmationTimeout.microseconds),
    package_ref: `#${rules.template.pkg.name}`,
    out_of_date: false,
  };
}

export interface ConfirmationWire {
  contract_id: string;
  action: ActionType;
  confirming_party: string;
  created_at: number;
  expires_at: number;
}

export interface ActionWire {
  action_hash: string;
  action: ActionType;
  confirmations: ConfirmationWire[];
  confirmation_count: number;
  can_execute: boolean;
  last_confirmation_at: number;
}

export interface DomainActionWire {
  proposal_cid: string;
  action_label: string;
  description?: string;
  confirmations: ConfirmationWire[];
  confirmation_count: number;
  can_execute: boolean;
  orphaned: boolean;
  proposer?: string;
  created_at?: number;
}

/** newest first, one per confirming party; the count takes only the unexpired ones */
function tally(confirmations: ConfirmationWire[], nowSeconds: number) {
  const unique: ConfirmationWire[] = [];
  const seen = new Set<string>();
  for (const c of [...confirmations].sort((a, b) => b.created_at - a.created_at)) {
    if (seen.has(c.confirming_party)) continue;
    seen.add(c.confirming_party);
    unique.push(c);
  }
  const count = unique.filter((c) => c.expires_at === 0 || c.expires_at > nowSeconds).length;
  return { unique, count };
}

/** the self-management actions with their confirmations, and the domain proposals with theirs */
export function governanceActions(
  ledger: Ledger,
  parties: string[],
  partyId: string,
  threshold: number,
  nowSeconds = Math.floor(Date.now() / 1000),
): { actions: ActionWire[]; domain_actions: DomainActionWire[] } {
  const byHash = new Map<string, { action: ActionType; confirmations: ConfirmationWire[] }>();
  for (const c of of<SelfConfirmationArg>(ledger, GovernanceSelfConfirmation, parties)) {
    if (c.arg.governanceParty !== partyId) continue;
    const action = actionTypeOf(c.arg.action);
    const hash = actionHash(action);
    const group = byHash.get(hash) ?? { action, confirmations: [] };
    group.confirmations.push({
      contract_id: c.cid,
      action,
      confirming_party: c.arg.confirmer,
      created_at: seconds(c.createdAt),
      expires_at: seconds(timeMicros(c.arg.expiresAt)),
    });
    byHash.set(hash, group);
  }
  const actions: ActionWire[] = [...byHash].map(([hash, group]) => {
    const { unique, count } = tally(group.confirmations, nowSeconds);
    return {
      action_hash: hash,
      action: group.action,
      confirmations: unique,
      confirmation_count: count,
      can_execute: count >= threshold,
      last_confirmation_at: Math.max(0, ...unique.map((c) => c.created_at)),
    };
  });

  const proposals = new Map<string, { view: GovernableActionView; contract: Contract }>();
  for (const c of ledger.contractsOf(partyId)) {
    if (findImplementation(c, GovernableActionI) === undefined || !visible(c, parties)) continue;
    const view = findImplementation(c, GovernableActionI)!.view(c.arg) as GovernableActionView;
    if (view.governanceParty === partyId) proposals.set(c.cid, { view, contract: c });
  }
  const byProposal = new Map<string, { label: string; confirmations: ConfirmationWire[] }>();
  for (const c of of<ConfirmationArg>(ledger, GovernanceConfirmation, parties)) {
    if (c.arg.governanceParty !== partyId) continue;
    const group = byProposal.get(c.arg.actionProposalCid) ?? { label: c.arg.actionLabel, confirmations: [] };
    group.confirmations.push({
      contract_id: c.cid,
      action: DOMAIN_PLACEHOLDER_ACTION,
      confirming_party: c.arg.confirmer,
      created_at: seconds(c.createdAt),
      expires_at: seconds(timeMicros(c.arg.expiresAt)),
    });
    byProposal.set(c.arg.actionProposalCid, group);
  }
  const domain: DomainActionWire[] = [];
  const details = (p: { view: GovernableActionView; contract: Contract } | undefined) =>
    p === undefined
      ? {}
      : {
          ...(p.view.description !== '' ? { description: p.view.description } : {}),
          proposer: p.view.proposer,
          created_at: seconds(p.contract.createdAt),
        };
  for (const [cid, group] of byProposal) {
    const proposal = proposals.get(cid);
    proposals.delete(cid);
    const { unique, count } = tally(group.confirmations, nowSeconds);
    const orphaned = proposal === undefined;
    domain.push({
      proposal_cid: cid,
      action_label: group.label,
      ...(proposal?.view.description ? { description: proposal.view.description } : {}),
      confirmations: unique,
      confirmation_count: count,
      can_execute: !orphaned && count >= threshold,
      orphaned,
      ...(proposal === undefined
        ? {}
        : { proposer: proposal.view.proposer, created_at: seconds(proposal.contract.createdAt) }),
    });
  }
  for (const [cid, proposal] of proposals) {
    domain.push({
      proposal_cid: cid,
      action_label: proposal.view.actionLabel,
      ...details(proposal),
      confirmations: [],
      confirmation_count: 0,
      can_execute: false,
      orphaned: false,
    });
  }
  return { actions, domain_actions: domain };
}

// ---- the registry's and the token's contracts (§11 requests, §12) -------------------------------------------

export interface TokenRequestWire {
  contract_id: string;
  holder: string;
  amount: string;
  instrument_admin: string;
  instrument_id: string;
  expires_at: number;
}

function requestWire(cid: string, p: MintPayload): TokenRequestWire {
  return {
    contract_id: cid,
    holder: p.holder,
    amount: new Decimal(p.amount).toString(),
    instrument_admin: p.instrumentId.admin,
    instrument_id: p.instrumentId.id,
    expires_at: seconds(timeMicros(p.executeBefore)),
  };
}

/** the open (not yet expired) mint or burn requests of instruments the party registers */
export function tokenRequests(
  ledger: Ledger,
  parties: string[],
  partyId: string,
  kind: 'mint' | 'burn',
): TokenRequestWire[] {
  const now = Date.now() * 1000;
  const out: TokenRequestWire[] = [];
  const template = kind === 'mint' ? MintRequest : BurnRequest;
  for (const c of of<Record<string, unknown> & { registrar: string }>(ledger, template, parties)) {
    const payload = c.arg[kind] as MintPayload;
    if (c.arg.registrar !== partyId || timeMicros(payload.executeBefore) <= now) continue;
    out.push(requestWire(c.cid, payload));
  }
  return out;
}

interface TransferArg {
  transfer: {
    sender: string;
    receiver: string;
    amount: string;
    instrumentId: { admin: string; id: string };
    executeBefore: string;
  };
}

/** the transfer offers the party sends or receives, waiting for the receiver */
export function transferInstructions(ledger: Ledger, parties: string[], partyId: string): unknown[] {
  const out: unknown[] = [];
  for (const c of of<TransferArg>(ledger, TransferOffer, parties)) {
    const t = c.arg.transfer;
    if (t.sender !== partyId && t.receiver !== partyId) continue;
    out.push({
      contract_id: c.cid,
      sender: t.sender,
      receiver: t.receiver,
      amount: new Decimal(t.amount).toString(),
      instrument_admin: t.instrumentId.admin,
      instrument_id: t.instrumentId.id,
      status: 'pending_receiver_acceptance',
      expires_at: seconds(timeMicros(t.executeBefore)),
    });
  }
  return out;
}

export function holdings(ledger: Ledger, parties: string[], partyId: string): unknown[] {
  const sums = new Map<string, { admin: string; id: string; amount: Decimal; locked: Decimal }>();
  for (const c of of<{
    owner: string;
    instrument: { source: string; id: string };
    amount: string;
    lock: unknown;
  }>(ledger, Holding, parties)) {
    if (c.arg.owner !== partyId) continue;
    const key = `${c.arg.instrument.source}/${c.arg.instrument.id}`;
    const sum = sums.get(key) ?? {
      admin: c.arg.instrument.source,
      id: c.arg.instrument.id,
      amount: new Decimal(0),
      locked: new Decimal(0),
    };
    if (c.arg.lock === null) sum.amount = sum.amount.plus(c.arg.amount);
    else sum.locked = sum.locked.plus(c.arg.amount);
    sums.set(key, sum);
  }
  const preapproved = new Set<string>();
  for (const c of of<{ receiver: string; instrumentId: { admin: string; id: string } }>(
    ledger,
    TransferPreapproval,
    parties,
  ))
    if (c.arg.receiver === partyId) preapproved.add(`${c.arg.instrumentId.admin}/${c.arg.instrumentId.id}`);
  return [...sums].map(([key, s]) => ({
    instrument_admin: s.admin,
    instrument_id: s.id,
    amount: s.amount.toFixed(10),
    locked_amount: s.locked.toFixed(10),
    preapproval_set_up: preapproved.has(key),
  }));
}

export function transferPreapprovals(
  ledger: Ledger,
  parties: string[],
  partyId: string,
): { cc: number; token: number } {
  let token = 0;
  for (const c of of<{ receiver: string }>(ledger, TransferPreapproval, parties))
    if (c.arg.receiver === partyId) token++;
  return { cc: 0, token };
}

export function instruments(ledger: Ledger, parties: string[]): unknown[] {
  return [
    ...of<{ instrumentId: { admin: string; id: string } }>(ledger, InstrumentConfiguration, parties),
  ].map((c) => ({
    contract_id: c.cid,
    instrument_admin: c.arg.instrumentId.admin,
    instrument_id: c.arg.instrumentId.id,
  }));
}

export function transferFactories(ledger: Ledger, parties: string[]): unknown[] {
  return [...of<{ provider: string }>(ledger, Factory, parties)].map((c) => ({
    contract_id: c.cid,
    expected_admin: c.arg.provider,
  }));
}

export function userServices(ledger: Ledger, parties: string[], partyId: string): unknown[] {
  return [...of<{ operator: string; user: string }>(ledger, UserService, parties)]
    .filter((c) => c.arg.user === partyId)
    .map((c) => ({ contract_id: c.cid, operator: c.arg.operator, user: c.arg.user }));
}

export function credentials(ledger: Ledger, parties: string[], partyId: string): unknown[] {
  return [
    ...of<{ issuer: string; holder: string; id: string; description: string; claims: unknown[] }>(
      ledger,
      Credential,
      parties,
    ),
  ]
    .filter((c) => c.arg.holder === partyId || c.arg.issuer === partyId)
    .map((c) => ({
      contract_id: c.cid,
      issuer: c.arg.issuer,
      holder: c.arg.holder,
      credential_id: c.arg.id,
      description: c.arg.description,
      claims: c.arg.claims,
    }));
}

export function credentialOffers(ledger: Ledger, parties: string[], partyId: string): unknown[] {
  return [
    ...of<{
      operator: string;
      issuer: string;
      holder: string;
      id: string;
      description: string;
      billingParams: unknown;
    }>(ledger, CredentialOffer, parties),
  ]
    .filter((c) => c.arg.holder === partyId || c.arg.issuer === partyId)
    .map((c) => ({
      contract_id: c.cid,
      operator: c.arg.operator,
      issuer: c.arg.issuer,
      holder: c.arg.holder,
      credential_id: c.arg.id,
      description: c.arg.description,
      is_free: c.arg.billingParams === null,
    }));
}

/**
 * The commands of the token flows, built exactly as wrapped-api.md §8 describes: interface choices with the
 * interface id in `templateId`, templates in the package-name form, the registry's or gateway's contracts disclosed
 * as they were handed out. Pure: no clock, no I/O, no command id. Build from a factory, context or rules contract
 * fetched right before the submission; never reuse one for several submissions.
 */
import { StepError } from '../errors.js';
import { amountProblem, positiveAmountProblem } from './amount.js';
import { disclosedFromGateway, type ContractInfo, type TokenStandardContracts } from './gateway.js';
import type { DisclosedContract, ExerciseCommand } from './ledger-wire.js';
import type {
  AllocationChoice,
  AllocationFactory,
  ChoiceContext,
  TransferFactory,
  TransferInstructionChoice,
} from './registry.js';
import {
  CONTEXT_KEYS,
  META_KEYS,
  TOKEN_CHOICES,
  TOKEN_INTERFACES,
  TOKEN_TEMPLATES,
  type AllocationSpecification,
  type InstrumentId,
  type Metadata,
  type Transfer,
} from './token-wire.js';

/** Commands and the contracts they need disclosed, ready for `PartyLedger.submit` with a command id. */
export interface PreparedCommands {
  commands: ExerciseCommand[];
  disclosedContracts: DisclosedContract[];
}

const EMPTY_META: Metadata = { values: {} };

function exercise(
  templateId: string,
  contractId: string,
  choice: string,
  choiceArgument: unknown,
): ExerciseCommand {
  return { ExerciseCommand: { templateId, contractId, choice, choiceArgument } };
}

function refuse(what: string, problems: readonly string[]): never {
  throw new StepError(`cannot build ${what}: ${problems.join('; ')}`, {
    hint: 'nothing was sent; fix the values given to the step',
  });
}

function time(value: Date | string): string {
  return typeof value === 'string' ? value : value.toISOString();
}

function timeProblems(requestedAt: Date | string, executeBefore: Date | string): string[] {
  const from = Date.parse(time(requestedAt));
  const until = Date.parse(time(executeBefore));
  if (Number.isNaN(from)) return ['requestedAt is not an RFC 3339 time'];
  if (Number.isNaN(until)) return ['executeBefore is not an RFC 3339 time'];
  return from < until ? [] : ['executeBefore is not after requestedAt'];
}

function isPartyId(value: string): boolean {
  return /^[^:]+::[^:]+$/.test(value);
}

export interface TransferSpec {
  sender: string;
  receiver: string;
  /** a decimal string, ≤ 10 fraction digits */
  amount: string;
  instrument: InstrumentId;
  /** in the past when the ledger checks it (the caller's clock, a little before now) */
  requestedAt: Date | string;
  /** the offer's expiry (the flows use now + 168 h; a self-transfer now + 5 h) */
  executeBefore: Date | string;
  /** the sender's unlocked holdings of the instrument to spend */
  inputHoldingCids: readonly string[];
  /** `transfer.meta.values`; the reason defaults to "" as in the flows */
  meta?: Readonly<Record<string, string>>;
}

/** A `Transfer` value (sender → receiver), checked before anything uses it. */
export function transferOf(spec: TransferSpec): Transfer {
  const problems = [
    ...(isPartyId(spec.sender) ? [] : [`sender '${spec.sender}' is not a party id`]),
    ...(isPartyId(spec.receiver) ? [] : [`receiver '${spec.receiver}' is not a party id`]),
    ...[positiveAmountProblem(spec.amount)].filter((p): p is string => p !== undefined),
    ...(spec.inputHoldingCids.length === 0 ? ['there are no input holdings'] : []),
    ...timeProblems(spec.requestedAt, spec.executeBefore),
  ];
  if (problems.length > 0) refuse('the transfer', problems);
  return {
    sender: spec.sender,
    receiver: spec.receiver,
    amount: spec.amount,
    instrumentId: { admin: spec.instrument.admin, id: spec.instrument.id },
    requestedAt: time(spec.requestedAt),
    executeBefore: time(spec.executeBefore),
    inputHoldingCids: [...spec.inputHoldingCids],
    meta: { values: { [META_KEYS.reason]: '', ...spec.meta } },
  };
}

/**
 * `TransferFactory_Transfer` on the registry's factory (§8.11): the context as returned goes to
 * `extraArgs.context`, the registry's contracts are disclosed with their synchronizer as received.
 */
export function transferCommand(factory: TransferFactory, transfer: Transfer): PreparedCommands {
  return {
    commands: [
      exercise(TOKEN_INTERFACES.transferFactory, factory.factoryId, TOKEN_CHOICES.transfer, {
        expectedAdmin: transfer.instrumentId.admin,
        transfer,
        extraArgs: { context: factory.choiceContext.choiceContextData, meta: EMPTY_META },
      }),
    ],
    disclosedContracts: factory.choiceContext.disclosedContracts,
  };
}

const INSTRUCTION_CHOICES: Record<TransferInstructionChoice, string> = {
  accept: TOKEN_CHOICES.accept,
  reject: TOKEN_CHOICES.reject,
  withdraw: TOKEN_CHOICES.withdraw,
};

/**
 * `TransferInstruction_Accept` (receiver), `_Reject` (receiver) or `_Withdraw` (sender) on an offer (§8.13–8.15),
 * with the context the registry gave for that choice on that offer.
 */
export function transferInstructionCommand(
  choice: TransferInstructionChoice,
  transferInstructionCid: string,
  context: ChoiceContext,
): PreparedCommands {
  return {
    commands: [
      exercise(TOKEN_INTERFACES.transferInstruction, transferInstructionCid, INSTRUCTION_CHOICES[choice], {
        extraArgs: { context: context.choiceContextData, meta: EMPTY_META },
      }),
    ],
    disclosedContracts: context.disclosedContracts,
  };
}

/** `AllocationFactory_Allocate` (§7.4): one leg of a settlement, funded from the sender's holdings. */
export function allocateCommand(
  factory: AllocationFactory,
  args: {
    expectedAdmin: string;
    allocation: AllocationSpecification;
    requestedAt: Date | string;
    inputHoldingCids: readonly string[];
  },
): PreparedCommands {
  const problem = amountProblem(args.allocation.transferLeg.amount);
  if (problem !== undefined) refuse('the allocation', [problem]);
  return {
    commands: [
      exercise(TOKEN_INTERFACES.allocationFactory, factory.factoryId, TOKEN_CHOICES.allocate, {
        expectedAdmin: args.expectedAdmin,
        allocation: args.allocation,
        requestedAt: time(args.requestedAt),
        inputHoldingCids: [...args.inputHoldingCids],
        extraArgs: { context: factory.choiceContext.choiceContextData, meta: EMPTY_META },
      }),
    ],
    disclosedContracts: factory.choiceContext.disclosedContracts,
  };
}

const ALLOCATION_CHOICES: Record<AllocationChoice, string> = {
  'execute-transfer': TOKEN_CHOICES.allocationExecuteTransfer,
  withdraw: TOKEN_CHOICES.allocationWithdraw,
  cancel: TOKEN_CHOICES.allocationCancel,
};

/** `Allocation_ExecuteTransfer` (executor), `Allocation_Withdraw` (sender) or `Allocation_Cancel` on an allocation. */
export function allocationCommand(
  choice: AllocationChoice,
  allocationCid: string,
  context: ChoiceContext,
): PreparedCommands {
  return {
    commands: [
      exercise(TOKEN_INTERFACES.allocation, allocationCid, ALLOCATION_CHOICES[choice], {
        extraArgs: { context: context.choiceContextData, meta: EMPTY_META },
      }),
    ],
    disclosedContracts: context.disclosedContracts,
  };
}

/** `CBTCDepositAccountRules_CreateDepositAccount` on the gateway's `da_rules` (§8.4): Minter credentials required. */
export function createDepositAccountCommand(args: {
  rules: ContractInfo;
  owner: string;
  credentialCids: readonly string[];
}): PreparedCommands {
  if (!isPartyId(args.owner)) refuse('the deposit account', [`owner '${args.owner}' is not a party id`]);
  return {
    commands: [
      exercise(
        TOKEN_TEMPLATES.depositAccountRules,
        args.rules.contract_id,
        TOKEN_CHOICES.createDepositAccount,
        {
          owner: args.owner,
          credentialCids: [...args.credentialCids],
        },
      ),
    ],
    disclosedContracts: [disclosedFromGateway(args.rules)],
  };
}

/** `CBTCWithdrawAccountRules_CreateWithdrawAccount` on the gateway's `wa_rules` (§8.7); the destination is fixed. */
export function createWithdrawAccountCommand(args: {
  rules: ContractInfo;
  owner: string;
  destinationBtcAddress: string;
  credentialCids: readonly string[];
}): PreparedCommands {
  const problems = [
    ...(isPartyId(args.owner) ? [] : [`owner '${args.owner}' is not a party id`]),
    ...(args.destinationBtcAddress.trim() === '' ? ['the destination address is empty'] : []),
  ];
  if (problems.length > 0) refuse('the withdraw account', problems);
  return {
    commands: [
      exercise(
        TOKEN_TEMPLATES.withdrawAccountRules,
        args.rules.contract_id,
        TOKEN_CHOICES.createWithdrawAccount,
        {
          owner: args.owner,
          destinationBtcAddress: args.destinationBtcAddress,
          credentialCids: [...args.credentialCids],
        },
      ),
    ],
    disclosedContracts: [disclosedFromGateway(args.rules)],
  };
}

/**
 * The burn (§8.8): `CBTCWithdrawAccount_Withdraw` on the owner's current withdraw account (it is consumed and
 * re-created: read it again before the next burn), spending `tokens`, with the gateway's token-standard contracts
 * in the context and disclosed.
 */
export function burnCommand(args: {
  withdrawAccountCid: string;
  tokens: readonly string[];
  amount: string;
  contracts: TokenStandardContracts;
  /** Minter credential cids; null when none are given */
  credentialCids?: readonly string[] | null;
  reason?: string;
}): PreparedCommands {
  const problems = [
    ...[positiveAmountProblem(args.amount)].filter((p): p is string => p !== undefined),
    ...(args.tokens.length === 0 ? ['there are no holdings to burn'] : []),
  ];
  if (problems.length > 0) refuse('the burn', problems);
  const c = args.contracts;
  return {
    commands: [
      exercise(TOKEN_TEMPLATES.withdrawAccount, args.withdrawAccountCid, TOKEN_CHOICES.burn, {
        tokens: [...args.tokens],
        amount: args.amount,
        burnMintFactoryCid: c.burn_mint_factory.contract_id,
        extraArgs: {
          context: {
            values: {
              [CONTEXT_KEYS.instrumentConfiguration]: {
                tag: 'AV_ContractId',
                value: c.instrument_configuration.contract_id,
              },
              [CONTEXT_KEYS.issuerCredentials]: {
                tag: 'AV_List',
                value: [{ tag: 'AV_ContractId', value: c.issuer_credential.contract_id }],
              },
            },
          },
          meta: { values: { [META_KEYS.reason]: args.reason ?? 'CBTC withdrawal' } },
        },
        credentialCids: args.credentialCids ? [...args.credentialCids] : null,
      }),
    ],
    disclosedContracts: [c.burn_mint_factory, c.instrument_configuration, c.issuer_credential].map((info) =>
      disclosedFromGateway(info),
    ),
  };
}

/** `UserService_AcceptFreeCredentialOffer` (§8.3) on the owner's UserService, with its template id as read. */
export function acceptCredentialOfferCommand(args: {
  userService: { contractId: string; templateId: string };
  credentialOfferCid: string;
}): PreparedCommands {
  return {
    commands: [
      exercise(
        args.userService.templateId,
        args.userService.contractId,
        TOKEN_CHOICES.acceptCredentialOffer,
        {
          credentialOfferCid: args.credentialOfferCid,
        },
      ),
    ],
    disclosedContracts: [],
  };
}

/** Several prepared commands as one atomic submission; a contract disclosed twice is disclosed once. */
export function combineCommands(parts: readonly PreparedCommands[]): PreparedCommands {
  const disclosed = new Map<string, DisclosedContract>();
  for (const part of parts) for (const d of part.disclosedContracts) disclosed.set(d.contractId, d);
  return { commands: parts.flatMap((part) => part.commands), disclosedContracts: [...disclosed.values()] };
}

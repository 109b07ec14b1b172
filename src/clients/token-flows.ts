/**
 * The token flows of wrapped-api.md §8 as one call each: fetch the ephemeral factory, context or rules contracts,
 * build the command, submit it at once as the party under the caller's command id, and read the result. No policy:
 * no input selection, no retry, no clock (the caller's `Transfer` carries the times).
 */
import { StepError } from '../errors.js';
import type { GatewayClient } from './gateway.js';
import type { CreatedEvent, Transaction } from './ledger-wire.js';
import type { PartyLedger, PartySubmitOptions } from './party-ledger.js';
import type {
  AllocationChoice,
  RegistryClient,
  TransferInstructionChoice,
  TransferKind,
} from './registry.js';
import {
  allocateCommand,
  allocationCommand,
  burnCommand,
  createDepositAccountCommand,
  createWithdrawAccountCommand,
  transferCommand,
  transferInstructionCommand,
} from './token-commands.js';
import {
  createdContracts,
  transferInstructionResult,
  type TransferInstructionResult,
} from './token-results.js';
import { TOKEN_CHOICES, TOKEN_TEMPLATES, type AllocationSpecification, type Transfer } from './token-wire.js';

export interface FlowOptions extends PartySubmitOptions {
  /** deterministic, from the caller */
  commandId: string;
}

export interface TransferSent {
  transaction: Transaction;
  /** what the registry said it would be (undefined when it did not say) */
  transferKind: TransferKind | undefined;
  /** pending (an offer), completed (settled at once) or failed; undefined when the transaction carries none */
  result: TransferInstructionResult | undefined;
}

function mismatch(what: string, hint: string): never {
  throw new StepError(what, { hint });
}

/** §8.11: the registry's transfer factory for this transfer, then `TransferFactory_Transfer` as the sender. */
export async function sendTransfer(
  party: PartyLedger,
  registry: RegistryClient,
  transfer: Transfer,
  options: FlowOptions,
): Promise<TransferSent> {
  if (transfer.sender !== party.party)
    mismatch(`the transfer's sender is not ${party.party}`, 'a transfer is submitted by its sender');
  if (transfer.instrumentId.admin !== registry.admin)
    mismatch(
      `the instrument admin ${transfer.instrumentId.admin} is not the registry's (${registry.admin})`,
      "use the registry of the instrument's admin",
    );
  const factory = await registry.transferFactory({ expectedAdmin: registry.admin, transfer }, options);
  const transaction = await party.submit(options.commandId, transferCommand(factory, transfer), options);
  return {
    transaction,
    transferKind: factory.transferKind,
    result: transferInstructionResult(transaction, TOKEN_CHOICES.transfer),
  };
}

/** §8.13–8.15: the choice's own context for the offer, then accept / reject (receiver) or withdraw (sender). */
export async function actOnTransferInstruction(
  party: PartyLedger,
  registry: RegistryClient,
  choice: TransferInstructionChoice,
  transferInstructionCid: string,
  options: FlowOptions,
): Promise<{ transaction: Transaction; result: TransferInstructionResult | undefined }> {
  const context = await registry.transferInstructionContext(transferInstructionCid, choice, options);
  const prepared = transferInstructionCommand(choice, transferInstructionCid, context);
  const transaction = await party.submit(options.commandId, prepared, options);
  return { transaction, result: transferInstructionResult(transaction) };
}

/** §7.4: the allocation factory for one leg, then `AllocationFactory_Allocate` as the leg's sender. */
export async function allocate(
  party: PartyLedger,
  registry: RegistryClient,
  args: {
    allocation: AllocationSpecification;
    requestedAt: Date | string;
    inputHoldingCids: readonly string[];
  },
  options: FlowOptions,
): Promise<Transaction> {
  const requestedAt =
    typeof args.requestedAt === 'string' ? args.requestedAt : args.requestedAt.toISOString();
  const factory = await registry.allocationFactory(
    {
      expectedAdmin: registry.admin,
      allocation: args.allocation,
      requestedAt,
      inputHoldingCids: [...args.inputHoldingCids],
    },
    options,
  );
  const prepared = allocateCommand(factory, { expectedAdmin: registry.admin, ...args, requestedAt });
  return party.submit(options.commandId, prepared, options);
}

/**
 * Executes, withdraws or cancels an allocation with that choice's own context, as one party. The token standard
 * gives `Allocation_Withdraw` to the leg's sender alone, but `Allocation_ExecuteTransfer` and `Allocation_Cancel`
 * to the executor, sender and receiver together: as one party they fail (`DAML_AUTHORIZATION_ERROR`); submit
 * `allocationCommand` acting as all three (`LedgerClient.submitAndWaitForTransaction`) where one user may.
 */
export async function settleAllocation(
  party: PartyLedger,
  registry: RegistryClient,
  choice: AllocationChoice,
  allocationCid: string,
  options: FlowOptions,
): Promise<Transaction> {
  const context = await registry.allocationContext(allocationCid, choice, options);
  return party.submit(options.commandId, allocationCommand(choice, allocationCid, context), options);
}

export interface AccountCreated {
  transaction: Transaction;
  /** the new account's create event, when the transaction shows it */
  account: CreatedEvent | undefined;
}

/** §8.4: the gateway's `da_rules`, then the party creates its deposit account (Minter credentials required). */
export async function createDepositAccount(
  party: PartyLedger,
  gateway: GatewayClient,
  credentialCids: readonly string[],
  options: FlowOptions,
): Promise<AccountCreated> {
  const rules = await gateway.accountContractRules(options);
  const prepared = createDepositAccountCommand({ rules: rules.da_rules, owner: party.party, credentialCids });
  const transaction = await party.submit(options.commandId, prepared, options);
  return { transaction, account: createdContracts(transaction, TOKEN_TEMPLATES.depositAccount)[0] };
}

/** §8.7: the gateway's `wa_rules`, then the party creates a withdraw account paying out to the address. */
export async function createWithdrawAccount(
  party: PartyLedger,
  gateway: GatewayClient,
  args: { destinationBtcAddress: string; credentialCids: readonly string[] },
  options: FlowOptions,
): Promise<AccountCreated> {
  const rules = await gateway.accountContractRules(options);
  const prepared = createWithdrawAccountCommand({ rules: rules.wa_rules, owner: party.party, ...args });
  const transaction = await party.submit(options.commandId, prepared, options);
  return { transaction, account: createdContracts(transaction, TOKEN_TEMPLATES.withdrawAccount)[0] };
}

/** §8.8: the gateway's token-standard contracts, then the burn on the party's current withdraw account. */
export async function burn(
  party: PartyLedger,
  gateway: GatewayClient,
  args: {
    withdrawAccountCid: string;
    tokens: readonly string[];
    amount: string;
    credentialCids?: readonly string[] | null;
  },
  options: FlowOptions,
): Promise<AccountCreated> {
  const contracts = await gateway.tokenStandardContracts(options);
  const transaction = await party.submit(options.commandId, burnCommand({ ...args, contracts }), options);
  return { transaction, account: createdContracts(transaction, TOKEN_TEMPLATES.withdrawAccount)[0] };
}

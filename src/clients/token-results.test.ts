/**
 * Reading LEDGER_EFFECTS transactions of the token flows: root exercises in pre-order and their
 * TransferInstructionResult (Pending / Completed / Failed), created contracts by template.
 */
import { describe, expect, it } from 'vitest';
import { IDS, createdEvent, exercisedEvent, transaction } from '../../test/clients/ledger-bodies.js';
import type { Transaction } from './ledger-wire.js';
import {
  createdContracts,
  rootExercises,
  transferInstructionResult,
  transferInstructionResults,
} from './token-results.js';

const pending = {
  output: { tag: 'TransferInstructionResult_Pending', value: { transferInstructionCid: '00fadd' } },
  senderChangeCids: ['00c5eb'],
  meta: { values: {} },
};

/** A two-step transfer as the reference shows it: the factory's exercise, then its consequences. */
function offerTransaction(): Transaction {
  return transaction([
    {
      ExercisedEvent: exercisedEvent({
        nodeId: 0,
        lastDescendantNodeId: 4,
        contractId: '000b99',
        templateId: IDS.factory,
        interfaceId: IDS.factoryInterface,
        choice: 'TransferFactory_Transfer',
        exerciseResult: pending,
      }),
    },
    {
      ExercisedEvent: exercisedEvent({
        nodeId: 1,
        lastDescendantNodeId: 1,
        templateId: IDS.registryHolding,
        choice: 'Holding_Lock',
        exerciseResult: {
          output: { tag: 'TransferInstructionResult_Failed', value: {} },
          senderChangeCids: [],
        },
        consuming: true,
      }),
    },
    { CreatedEvent: createdEvent({ templateId: IDS.registryHolding, nodeId: 2 }) },
    { CreatedEvent: createdEvent({ templateId: IDS.registryHolding, nodeId: 3 }) },
    { CreatedEvent: createdEvent({ templateId: IDS.transferOffer, nodeId: 4, contractId: '00fadd' }) },
  ]) as Transaction;
}

describe('transaction results', () => {
  it('the root exercise’s Pending result, not a nested exercise’s', () => {
    const tx = offerTransaction();
    expect(rootExercises(tx).map((e) => e.nodeId)).toEqual([0]);
    expect(transferInstructionResult(tx, 'TransferFactory_Transfer')).toEqual({
      contractId: '000b99',
      choice: 'TransferFactory_Transfer',
      outcome: { status: 'pending', transferInstructionCid: '00fadd' },
      senderChangeCids: ['00c5eb'],
      meta: {},
    });
  });

  it('Completed (a direct or self transfer) and Failed (a reject or withdraw) are outcomes, not errors', () => {
    const completed = transaction([
      {
        ExercisedEvent: exercisedEvent({
          nodeId: 0,
          lastDescendantNodeId: 0,
          templateId: IDS.factory,
          choice: 'TransferFactory_Transfer',
          exerciseResult: {
            output: { tag: 'TransferInstructionResult_Completed', value: { receiverHoldingCids: ['00r1'] } },
            senderChangeCids: [],
            meta: { values: {} },
          },
        }),
      },
    ]) as Transaction;
    expect(transferInstructionResult(completed)?.outcome).toEqual({
      status: 'completed',
      receiverHoldingCids: ['00r1'],
    });
    const failed = transaction([
      {
        ExercisedEvent: exercisedEvent({
          nodeId: 0,
          lastDescendantNodeId: 0,
          templateId: IDS.transferOffer,
          choice: 'TransferInstruction_Reject',
          exerciseResult: {
            output: { tag: 'TransferInstructionResult_Failed', value: {} },
            senderChangeCids: ['00back'],
            meta: { values: {} },
          },
          consuming: true,
        }),
      },
    ]) as Transaction;
    expect(transferInstructionResult(failed)).toMatchObject({
      outcome: { status: 'failed' },
      senderChangeCids: ['00back'],
    });
  });

  it('a batch of accepts: one result per root exercise, in order', () => {
    const accept = (nodeId: number, cid: string) => ({
      ExercisedEvent: exercisedEvent({
        nodeId,
        lastDescendantNodeId: nodeId + 1,
        contractId: cid,
        templateId: IDS.transferOffer,
        choice: 'TransferInstruction_Accept',
        exerciseResult: {
          output: { tag: 'TransferInstructionResult_Completed', value: { receiverHoldingCids: [`${cid}r`] } },
          senderChangeCids: [],
        },
        consuming: true,
      }),
    });
    const tx = transaction([
      accept(0, '00f1'),
      { CreatedEvent: createdEvent({ templateId: IDS.registryHolding, nodeId: 1 }) },
      accept(2, '00f2'),
      { CreatedEvent: createdEvent({ templateId: IDS.registryHolding, nodeId: 3 }) },
    ]) as Transaction;
    expect(transferInstructionResults(tx, 'TransferInstruction_Accept').map((r) => r.contractId)).toEqual([
      '00f1',
      '00f2',
    ]);
  });

  it('no result when the root exercise returned something else; created contracts matched by entity', () => {
    const tx = transaction([
      {
        ExercisedEvent: exercisedEvent({
          nodeId: 0,
          lastDescendantNodeId: 1,
          templateId: IDS.depositRules,
          choice: 'CBTCDepositAccountRules_CreateDepositAccount',
          exerciseResult: { depositAccountCid: '00da' },
        }),
      },
      { CreatedEvent: createdEvent({ templateId: IDS.depositAccount, nodeId: 1, contractId: '00da' }) },
    ]) as Transaction;
    expect(transferInstructionResult(tx)).toBeUndefined();
    expect(
      createdContracts(tx, '#cbtc:CBTC.DepositAccount:CBTCDepositAccount').map((c) => c.contractId),
    ).toEqual(['00da']);
    expect(createdContracts(tx, '#cbtc:CBTC.WithdrawAccount:CBTCWithdrawAccount')).toEqual([]);
  });
});

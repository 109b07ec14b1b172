/**
 * Mints read from a party's transactions: only the holdings a CompleteDeposit on the party's own account created
 * for it, of the target's instrument, count; transfers, change and other accounts do not.
 */
import { describe, expect, it } from 'vitest';
import {
  ADMIN,
  ALICE,
  BOB,
  IDS,
  INSTRUMENT,
  OTHER_ADMIN,
  createdEvent,
  exercisedEvent,
  holdingView,
  transaction,
} from '../../../test/clients/ledger-bodies.js';
import type { Transaction } from '../../clients/ledger-wire.js';
import type { DepositAccount } from '../../clients/party-ledger.js';
import { COMPLETE_DEPOSIT, mintedTotal, mintsIn } from './mints.js';

const account = { id: 'acct-1', accountId: 'acct-1', contractId: '00acct' } as DepositAccount;

function holding(cid: string, amount: string, owner = ALICE, admin = ADMIN): unknown {
  return {
    CreatedEvent: createdEvent({
      contractId: cid,
      templateId: IDS.registryHolding,
      views: [{ interfaceId: IDS.holdingInterface, viewValue: holdingView({ owner, amount, admin }) }],
    }),
  };
}

function accountCreated(id: string | null): unknown {
  return {
    CreatedEvent: createdEvent({ templateId: IDS.depositAccount, createArgument: { id, owner: ALICE } }),
  };
}

function tx(choice: string, events: unknown[], templateId = IDS.depositAccount): Transaction {
  return transaction([
    {
      ExercisedEvent: exercisedEvent({ nodeId: 0, lastDescendantNodeId: events.length, templateId, choice }),
    },
    ...events,
  ]) as unknown as Transaction;
}

describe('mintsIn', () => {
  it('counts the holdings a CompleteDeposit on the account created for the party', () => {
    const mints = mintsIn(
      [
        tx(COMPLETE_DEPOSIT, [holding('00m1', '0.0500000000'), accountCreated('acct-1')]),
        tx(COMPLETE_DEPOSIT, [holding('00m2', '0.02'), accountCreated('acct-1')]),
      ],
      ALICE,
      INSTRUMENT,
      account,
    );
    expect(mints.map((m) => [m.holdingCid, m.amount])).toEqual([
      ['00m1', '0.0500000000'],
      ['00m2', '0.02'],
    ]);
    expect(mintedTotal(mints)).toBe('0.07');
  });

  it('ignores transfers, another account’s mints, other owners and another admin’s instrument', () => {
    const mints = mintsIn(
      [
        tx('TransferFactory_Transfer', [holding('00t1', '1')], IDS.factory),
        tx(COMPLETE_DEPOSIT, [holding('00o1', '1'), accountCreated('acct-2')]),
        tx(COMPLETE_DEPOSIT, [holding('00b1', '1', BOB), accountCreated('acct-1')]),
        tx(COMPLETE_DEPOSIT, [holding('00x1', '1', ALICE, OTHER_ADMIN), accountCreated('acct-1')]),
      ],
      ALICE,
      INSTRUMENT,
      account,
    );
    expect(mints).toEqual([]);
  });

  it('reads the registry payload when the participant sent no Holding view', () => {
    const payload = {
      CreatedEvent: createdEvent({
        contractId: '00p1',
        templateId: IDS.registryHolding,
        createArgument: { owner: ALICE, amount: '0.3', instrument: { source: ADMIN, id: 'CBTC' } },
      }),
    };
    const mints = mintsIn(
      [tx(COMPLETE_DEPOSIT, [payload, accountCreated('acct-1')])],
      ALICE,
      INSTRUMENT,
      account,
    );
    expect(mints.map((m) => m.amount)).toEqual(['0.3']);
  });
});

/**
 * Allocations for delivery-versus-payment (wrapped-api.md §7.4): one settlement leg's funds locked for an
 * executor until it settles (Allocation_ExecuteTransfer: executor, sender and receiver), the sender takes them
 * back (Allocation_Withdraw), or all three cancel (Allocation_Cancel).
 */
import { T } from '../ledger/lf.js';
import { template } from '../ledger/model.js';
import type { ChoiceContext } from '../ledger/model.js';
import { Holding, type HoldingArg, type Registrar, holdingArg } from './holding.js';
import { AllocationI } from './interfaces.js';
import { PKG } from './packages.js';
import { recordExecuted } from './transfer.js';
import { type AllocationSpecification, AllocationSpecificationT, EMPTY_META, dec, micros } from './types.js';

export interface AllocationArg {
  operator: string;
  provider: string;
  allocation: AllocationSpecification;
  /** the locked holding */
  holdingCids: string[];
}

function registrarOf(a: AllocationArg): Registrar {
  return {
    operator: a.operator,
    provider: a.provider,
    registrar: a.allocation.transferLeg.instrumentId.admin,
  };
}

function release(tx: ChoiceContext, a: AllocationArg): { cid: string; amount: string } {
  const cid = a.holdingCids[0];
  const holding = tx.fetch<HoldingArg>(cid, Holding, 'allocated holding');
  tx.exercise(holding.cid, 'Archive', {});
  return { cid: holding.cid, amount: holding.arg.amount };
}

function returnToSender(tx: ChoiceContext, a: AllocationArg): unknown {
  const released = release(tx, a);
  const leg = a.allocation.transferLeg;
  const back = tx.create(
    Holding,
    holdingArg(registrarOf(a), leg.sender, leg.instrumentId, dec(released.amount)),
  );
  return { senderHoldingCids: [back], meta: EMPTY_META };
}

export const Allocation = template<AllocationArg>({
  pkg: PKG.registryApp,
  name: { module: 'Utility.Registry.App.V0.Model.Allocation', entity: 'Allocation' },
  argType: T.record('Allocation', {
    operator: T.party,
    provider: T.party,
    allocation: AllocationSpecificationT,
    holdingCids: T.list(T.cid),
  }),
  signatories: (a) => [...new Set([a.allocation.transferLeg.sender, a.provider])],
  observers: (a) => [...new Set([a.allocation.settlement.executor, a.allocation.transferLeg.receiver])],
  implements: [
    {
      iface: AllocationI,
      view: (a) => ({ allocation: a.allocation, holdingCids: a.holdingCids, meta: EMPTY_META }),
      choices: {
        Allocation_ExecuteTransfer: (tx, self) => {
          const a = self.arg;
          tx.require(
            tx.now < micros(a.allocation.settlement.settleBefore),
            `The allocation can no longer be settled: settleBefore ${a.allocation.settlement.settleBefore} has passed`,
          );
          const released = release(tx, a);
          const leg = a.allocation.transferLeg;
          const received = tx.create(
            Holding,
            holdingArg(registrarOf(a), leg.receiver, leg.instrumentId, dec(released.amount)),
          );
          recordExecuted(tx, registrarOf(a), leg);
          return { senderHoldingCids: [], receiverHoldingCids: [received], meta: EMPTY_META };
        },
        Allocation_Cancel: (tx, self) => returnToSender(tx, self.arg),
        Allocation_Withdraw: (tx, self) => returnToSender(tx, self.arg),
      },
    },
  ],
});

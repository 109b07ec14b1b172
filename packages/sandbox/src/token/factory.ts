/**
 * The registry's factory contract (`…Service.AllocationFactory:AllocationFactory`, wrapped-api.md §2.1): the
 * TransferFactory and AllocationFactory of an instrument admin. TransferFactory_Transfer settles a self transfer
 * (merge-split) or a transfer to a preapproved receiver at once, and otherwise locks the amount in an offer
 * (wrapped-api.md §10.3). And the burn-mint factory the withdraw (burn) flow uses.
 */
import { Decimal } from 'decimal.js';
import { T } from '../ledger/lf.js';
import { type Contract, template } from '../ledger/model.js';
import type { ChoiceContext } from '../ledger/model.js';
import { Allocation } from './allocation.js';
import { Holding, type Registrar, createChange, holdingArg, lockBy, spendInputs } from './holding.js';
import { AllocationFactoryI, BurnMintFactoryI, TransferFactoryI } from './interfaces.js';
import { PKG } from './packages.js';
import {
  TransferOffer,
  TransferPreapproval,
  type PreapprovalArg,
  checkConfiguration,
  instructionResult,
} from './transfer.js';
import {
  type AllocationSpecification,
  CONTEXT,
  EMPTY_META,
  type ExtraArgs,
  type InstrumentId,
  type Transfer,
  amount,
  contextCid,
  dec,
  micros,
  sameInstrument,
  tagged,
} from './types.js';

export interface FactoryArg {
  operator: string;
  provider: string;
}

function registrar(self: Contract<FactoryArg>): Registrar {
  return { operator: self.arg.operator, provider: self.arg.provider, registrar: self.arg.provider };
}

function checkAdmin(
  tx: ChoiceContext,
  self: Contract<FactoryArg>,
  expectedAdmin: string,
  instrument: InstrumentId,
): void {
  tx.require(
    expectedAdmin === self.arg.provider,
    `expectedAdmin ${expectedAdmin} is not the admin of this factory (${self.arg.provider})`,
  );
  tx.require(
    instrument.admin === self.arg.provider,
    `instrument admin ${instrument.admin} is not the admin of this factory (${self.arg.provider})`,
  );
}

function transfer(
  tx: ChoiceContext,
  self: Contract<FactoryArg>,
  arg: { expectedAdmin: string; transfer: Transfer; extraArgs: ExtraArgs },
): unknown {
  const t = arg.transfer;
  checkAdmin(tx, self, arg.expectedAdmin, t.instrumentId);
  checkConfiguration(tx, arg.extraArgs, t.instrumentId);
  const value = dec(t.amount);
  tx.require(value.greaterThan(0), `the amount must be positive, got ${t.amount}`);
  tx.require(micros(t.requestedAt) <= tx.now, `requestedAt ${t.requestedAt} must be in the past`);
  tx.require(micros(t.executeBefore) > tx.now, `executeBefore ${t.executeBefore} must be in the future`);
  const r = registrar(self);
  const total = spendInputs(tx, t.inputHoldingCids, t.sender, t.instrumentId, value);
  const change = createChange(tx, r, t.sender, t.instrumentId, total, value);

  if (t.receiver === t.sender) {
    const merged = tx.create(Holding, holdingArg(r, t.sender, t.instrumentId, value));
    return instructionResult(
      tagged('TransferInstructionResult_Completed', { receiverHoldingCids: [merged] }),
      change,
    );
  }
  const preapprovalCid = contextCid(tx, arg.extraArgs, CONTEXT.transferPreapproval, false);
  if (preapprovalCid !== undefined) {
    const preapproval = tx.fetch<PreapprovalArg>(preapprovalCid, TransferPreapproval, 'transfer preapproval');
    tx.require(
      preapproval.arg.receiver === t.receiver,
      `the preapproval in the context is for ${preapproval.arg.receiver}, not ${t.receiver}`,
    );
    tx.require(
      sameInstrument(preapproval.arg.instrumentId, t.instrumentId),
      'the preapproval in the context is for another instrument',
    );
    const result = tx.exercise(preapprovalCid, 'TransferPreapproval_Receive', {
      sender: t.sender,
      amount: t.amount,
      meta: t.meta,
    }) as {
      receiverHoldingCid: string;
    };
    return instructionResult(
      tagged('TransferInstructionResult_Completed', { receiverHoldingCids: [result.receiverHoldingCid] }),
      change,
    );
  }
  const locked = tx.create(
    Holding,
    holdingArg(
      r,
      t.sender,
      t.instrumentId,
      value,
      lockBy([self.arg.provider], `transfer offer to ${t.receiver}`),
    ),
  );
  const offer = tx.create(TransferOffer, {
    operator: self.arg.operator,
    provider: self.arg.provider,
    transfer: { ...t, inputHoldingCids: [locked] },
  });
  return instructionResult(
    tagged('TransferInstructionResult_Pending', { transferInstructionCid: offer }),
    change,
  );
}

function allocate(
  tx: ChoiceContext,
  self: Contract<FactoryArg>,
  arg: {
    expectedAdmin: string;
    allocation: AllocationSpecification;
    requestedAt: string;
    inputHoldingCids: string[];
    extraArgs: ExtraArgs;
  },
): unknown {
  const { settlement, transferLeg: leg } = arg.allocation;
  checkAdmin(tx, self, arg.expectedAdmin, leg.instrumentId);
  checkConfiguration(tx, arg.extraArgs, leg.instrumentId);
  const value = dec(leg.amount);
  tx.require(value.greaterThan(0), `the amount must be positive, got ${leg.amount}`);
  tx.require(micros(arg.requestedAt) <= tx.now, `requestedAt ${arg.requestedAt} must be in the past`);
  tx.require(
    tx.now < micros(settlement.allocateBefore),
    `allocateBefore ${settlement.allocateBefore} has passed`,
  );
  tx.require(
    micros(settlement.allocateBefore) <= micros(settlement.settleBefore),
    'allocateBefore must not be after settleBefore',
  );
  const r = registrar(self);
  const total = spendInputs(tx, arg.inputHoldingCids, leg.sender, leg.instrumentId, value);
  const change = createChange(tx, r, leg.sender, leg.instrumentId, total, value);
  const locked = tx.create(
    Holding,
    holdingArg(
      r,
      leg.sender,
      leg.instrumentId,
      value,
      lockBy(
        [self.arg.provider, settlement.executor],
        `allocation ${settlement.settlementRef.id}/${arg.allocation.transferLegId}`,
      ),
    ),
  );
  const allocation = tx.create(Allocation, {
    operator: self.arg.operator,
    provider: self.arg.provider,
    allocation: arg.allocation,
    holdingCids: [locked],
  });
  return {
    output: tagged('AllocationInstructionResult_Completed', { allocationCid: allocation }),
    senderChangeCids: change,
    meta: EMPTY_META,
  };
}

export const Factory = template<FactoryArg>({
  pkg: PKG.registryApp,
  name: { module: 'Utility.Registry.App.V0.Service.AllocationFactory', entity: 'AllocationFactory' },
  argType: T.record('AllocationFactory', { operator: T.party, provider: T.party }),
  signatories: (a) => [a.provider],
  observers: () => [],
  implements: [
    {
      iface: TransferFactoryI,
      view: (a) => ({ admin: a.provider, meta: EMPTY_META }),
      choices: {
        TransferFactory_Transfer: transfer,
        TransferFactory_PublicFetch: (_tx, self) => ({ admin: self.arg.provider, meta: EMPTY_META }),
      },
    },
    {
      iface: AllocationFactoryI,
      view: (a) => ({ admin: a.provider, meta: EMPTY_META }),
      choices: {
        AllocationFactory_Allocate: allocate,
        AllocationFactory_PublicFetch: (_tx, self) => ({ admin: self.arg.provider, meta: EMPTY_META }),
      },
    },
  ],
});

/** The admin's burn-mint factory: burns input holdings and mints outputs (the withdraw flow burns with it). */
export const BurnMintFactory = template<FactoryArg>({
  pkg: PKG.registryApp,
  name: { module: 'Utility.Registry.App.V0.Service.BurnMintFactory', entity: 'BurnMintFactory' },
  argType: T.record('BurnMintFactory', { operator: T.party, provider: T.party }),
  signatories: (a) => [a.provider],
  observers: () => [],
  implements: [
    {
      iface: BurnMintFactoryI,
      view: (a) => ({ admin: a.provider, meta: EMPTY_META }),
      choices: {
        BurnMintFactory_BurnMint: (
          tx,
          self,
          arg: {
            expectedAdmin: string;
            instrumentId: InstrumentId;
            inputHoldingCids: string[];
            outputs: Array<{ owner: string; amount: string; context: string }>;
          },
        ) => {
          checkAdmin(tx, self, arg.expectedAdmin, arg.instrumentId);
          const r = registrar(self);
          let burned = new Decimal(0);
          for (const cid of arg.inputHoldingCids) {
            const holding = tx.fetch(cid, Holding, 'input holding');
            tx.require(holding.arg.lock === null, `input holding ${cid} is locked`);
            burned = burned.plus(dec(holding.arg.amount));
            tx.exercise(cid, 'Archive', {});
          }
          const outputCids = arg.outputs.map((o) =>
            tx.create(Holding, holdingArg(r, o.owner, arg.instrumentId, dec(o.amount))),
          );
          return { outputCids, burned: amount(burned), meta: EMPTY_META };
        },
      },
    },
  ],
});

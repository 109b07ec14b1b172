/**
 * Two-step transfers (wrapped-api.md §8.11–§8.15, §10.3): the registry's configuration contracts that choices
 * read through the choice context, the TransferOffer (a TransferInstruction pending the receiver's acceptance)
 * with its accept / reject / withdraw, the record of an executed transfer, and the receiver's preapproval that
 * makes a transfer settle at once ("direct").
 */
import { T, formatTime } from '../ledger/lf.js';
import { template } from '../ledger/model.js';
import type { ChoiceContext } from '../ledger/model.js';
import { Holding, type HoldingArg, type Registrar, holdingArg } from './holding.js';
import { TransferInstructionI } from './interfaces.js';
import { PKG } from './packages.js';
import {
  CONTEXT,
  EMPTY_META,
  type ExtraArgs,
  InstrumentIdT,
  type InstrumentId,
  MetadataT,
  type Metadata,
  type Transfer,
  TransferT,
  contextCid,
  dec,
  micros,
  sameInstrument,
  tagged,
} from './types.js';

export interface InstrumentConfigurationArg {
  operator: string;
  registrar: string;
  instrumentId: InstrumentId;
  name: string;
  symbol: string;
  decimals: string;
}

export const InstrumentConfiguration = template<InstrumentConfigurationArg>({
  pkg: PKG.registry,
  name: { module: 'Utility.Registry.V0.Configuration.Instrument', entity: 'InstrumentConfiguration' },
  argType: T.record('InstrumentConfiguration', {
    operator: T.party,
    registrar: T.party,
    instrumentId: InstrumentIdT,
    name: T.text,
    symbol: T.text,
    decimals: T.int,
  }),
  signatories: (a) => [a.registrar],
  observers: () => [],
});

export const TransferRule = template<{ operator: string; registrar: string; instrumentId: InstrumentId }>({
  pkg: PKG.registry,
  name: { module: 'Utility.Registry.V0.Rule.Transfer', entity: 'TransferRule' },
  argType: T.record('TransferRule', { operator: T.party, registrar: T.party, instrumentId: InstrumentIdT }),
  signatories: (a) => [a.registrar],
  observers: () => [],
});

export const AppRewardConfiguration = template<{ operator: string; provider: string; featured: boolean }>({
  pkg: PKG.registry,
  name: { module: 'Utility.Registry.V0.Configuration.AppReward', entity: 'AppRewardConfiguration' },
  argType: T.record('AppRewardConfiguration', { operator: T.party, provider: T.party, featured: T.bool }),
  signatories: (a) => [a.provider],
  observers: () => [],
});

export interface ExecutedTransferArg {
  operator: string;
  provider: string;
  sender: string;
  receiver: string;
  instrumentId: InstrumentId;
  amount: string;
  executedAt: string;
  meta: Metadata;
}

export const ExecutedTransfer = template<ExecutedTransferArg>({
  pkg: PKG.registry,
  name: { module: 'Utility.Registry.V0.Holding.Transfer', entity: 'ExecutedTransfer' },
  argType: T.record('ExecutedTransfer', {
    operator: T.party,
    provider: T.party,
    sender: T.party,
    receiver: T.party,
    instrumentId: InstrumentIdT,
    amount: T.numeric,
    executedAt: T.time,
    meta: MetadataT,
  }),
  signatories: (a) => [a.provider],
  observers: (a) => [...new Set([a.sender, a.receiver])],
});

export function recordExecuted(
  tx: ChoiceContext,
  r: Registrar,
  transfer: Pick<Transfer, 'sender' | 'receiver' | 'instrumentId' | 'amount' | 'meta'>,
): string {
  return tx.create(ExecutedTransfer, {
    operator: r.operator,
    provider: r.provider,
    sender: transfer.sender,
    receiver: transfer.receiver,
    instrumentId: transfer.instrumentId,
    amount: transfer.amount,
    executedAt: formatTime(tx.now),
    meta: transfer.meta,
  });
}

export interface PreapprovalArg {
  operator: string;
  provider: string;
  receiver: string;
  instrumentId: InstrumentId;
}

/** The receiver's standing consent to receive an instrument: transfers to it settle at once. */
export const TransferPreapproval = template<PreapprovalArg>({
  pkg: PKG.registryApp,
  name: { module: 'Utility.Registry.App.V0.Model.Preapproval', entity: 'TransferPreapproval' },
  argType: T.record('TransferPreapproval', {
    operator: T.party,
    provider: T.party,
    receiver: T.party,
    instrumentId: InstrumentIdT,
  }),
  signatories: (a) => [...new Set([a.receiver, a.provider])],
  observers: (a) => [a.operator],
  choices: {
    TransferPreapproval_Receive: {
      argType: T.record('TransferPreapproval_Receive', {
        sender: T.party,
        amount: T.numeric,
        meta: MetadataT,
      }),
      consuming: false,
      controllers: (a) => [a.provider],
      body: (tx, self, arg: { sender: string; amount: string; meta: Metadata }) => {
        const r = { operator: self.arg.operator, provider: self.arg.provider, registrar: self.arg.provider };
        const cid = tx.create(
          Holding,
          holdingArg(r, self.arg.receiver, self.arg.instrumentId, dec(arg.amount)),
        );
        recordExecuted(tx, r, { ...arg, receiver: self.arg.receiver, instrumentId: self.arg.instrumentId });
        return { receiverHoldingCid: cid };
      },
    },
  },
});

export interface TransferOfferArg {
  operator: string;
  provider: string;
  /** the transfer as requested; `inputHoldingCids` holds the locked holding */
  transfer: Transfer;
}

export function instructionResult(
  output: { tag: string; value: unknown },
  senderChangeCids: string[],
): unknown {
  return { output, senderChangeCids, meta: EMPTY_META };
}

function registrarOf(offer: TransferOfferArg): Registrar {
  return { operator: offer.operator, provider: offer.provider, registrar: offer.transfer.instrumentId.admin };
}

/** the locked holding an offer holds, checked */
function lockedHolding(tx: ChoiceContext, offer: TransferOfferArg): { cid: string; arg: HoldingArg } {
  const cid = offer.transfer.inputHoldingCids[0];
  const holding = tx.fetch<HoldingArg>(cid, Holding, 'locked holding');
  tx.require(holding.arg.lock !== null, `holding ${String(cid)} of the offer is not locked`);
  return { cid: holding.cid, arg: holding.arg };
}

/** Returns the locked amount to the sender as an unlocked holding (reject, withdraw). */
function returnFunds(tx: ChoiceContext, offer: TransferOfferArg): unknown {
  const locked = lockedHolding(tx, offer);
  tx.exercise(locked.cid, 'Archive', {});
  const t = offer.transfer;
  const back = tx.create(
    Holding,
    holdingArg(registrarOf(offer), t.sender, t.instrumentId, dec(locked.arg.amount)),
  );
  return instructionResult(tagged('TransferInstructionResult_Failed'), [back]);
}

export const TransferOffer = template<TransferOfferArg>({
  pkg: PKG.registryApp,
  name: { module: 'Utility.Registry.App.V0.Model.Transfer', entity: 'TransferOffer' },
  argType: T.record('TransferOffer', { operator: T.party, provider: T.party, transfer: TransferT }),
  signatories: (a) => [...new Set([a.transfer.sender, a.provider, a.transfer.instrumentId.admin])],
  observers: (a) => [...new Set([a.transfer.receiver, a.operator])],
  implements: [
    {
      iface: TransferInstructionI,
      view: (a) => ({
        originalInstructionCid: null,
        transfer: a.transfer,
        status: tagged('TransferPendingReceiverAcceptance'),
        meta: EMPTY_META,
      }),
      choices: {
        TransferInstruction_Accept: (tx, self, arg: { extraArgs: ExtraArgs }) => {
          const t = self.arg.transfer;
          tx.require(
            tx.now < micros(t.executeBefore),
            `The transfer offer expired at ${t.executeBefore}: it can no longer be accepted (withdraw or reject it to return the funds)`,
          );
          checkConfiguration(tx, arg.extraArgs, t.instrumentId);
          const locked = lockedHolding(tx, self.arg);
          tx.exercise(locked.cid, 'Archive', {});
          const r = registrarOf(self.arg);
          const received = tx.create(
            Holding,
            holdingArg(r, t.receiver, t.instrumentId, dec(locked.arg.amount)),
          );
          recordExecuted(tx, r, t);
          return instructionResult(
            tagged('TransferInstructionResult_Completed', { receiverHoldingCids: [received] }),
            [],
          );
        },
        TransferInstruction_Reject: (tx, self) => returnFunds(tx, self.arg),
        TransferInstruction_Withdraw: (tx, self) => returnFunds(tx, self.arg),
        TransferInstruction_Update: (tx) =>
          tx.fail('TransferInstruction_Update is not supported by this registry'),
      },
    },
  ],
});

/** the instrument configuration from the choice context must be this registry's, for this instrument */
export function checkConfiguration(tx: ChoiceContext, extraArgs: ExtraArgs, instrument: InstrumentId): void {
  const cid = contextCid(tx, extraArgs, CONTEXT.instrumentConfiguration, true);
  const config = tx.fetch<InstrumentConfigurationArg>(
    cid,
    InstrumentConfiguration,
    'instrument configuration',
  );
  tx.require(
    sameInstrument(config.arg.instrumentId, instrument),
    `the instrument configuration in the context is for ${config.arg.instrumentId.id} of ${config.arg.instrumentId.admin}, not ${instrument.id} of ${instrument.admin}`,
  );
}

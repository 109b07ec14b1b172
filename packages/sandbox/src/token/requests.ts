/**
 * Holder-initiated mint and burn requests of the registry (`Utility.Registry.App.V0.Model.Mint:MintRequest`,
 * `…Model.Burn:BurnRequest`), which an instrument's registrar accepts: a decentralized party that is the registrar
 * accepts them through its governance (the AcceptMintRequest / AcceptBurnRequest proposals). The request carries
 * its payload in `mint` / `burn`: holder, amount, instrument and the deadline `executeBefore`; a burn also names
 * the holder's input holdings. Accepting checks the instrument configuration from the choice context, as the
 * registry's other choices do. The holder creates the request itself (the registry's AllocationFactory_RequestMint
 * is not simulated).
 */
import { Decimal } from 'decimal.js';
import { T } from '../ledger/lf.js';
import { type Contract, template, unique } from '../ledger/model.js';
import type { ChoiceContext } from '../ledger/model.js';
import { Holding, type Registrar, createChange, holdingArg, spendInputs } from './holding.js';
import { PKG } from './packages.js';
import { checkConfiguration } from './transfer.js';
import {
  ExtraArgsT,
  InstrumentIdT,
  MetadataT,
  type ExtraArgs,
  type InstrumentId,
  dec,
  micros,
} from './types.js';

export interface MintPayload {
  holder: string;
  amount: string;
  instrumentId: InstrumentId;
  executeBefore: string;
  meta: { values: Record<string, string> };
}

export interface BurnPayload extends MintPayload {
  inputHoldingCids: string[];
}

export interface MintRequestArg {
  operator: string;
  provider: string;
  registrar: string;
  mint: MintPayload;
}

export interface BurnRequestArg {
  operator: string;
  provider: string;
  registrar: string;
  burn: BurnPayload;
}

const payloadFields = {
  holder: T.party,
  amount: T.numeric,
  instrumentId: InstrumentIdT,
  executeBefore: T.time,
  meta: MetadataT,
};

function requestProblem(registrar: string, p: MintPayload): string | undefined {
  if (!new Decimal(p.amount).greaterThan(0)) return `the amount must be positive, got ${p.amount}`;
  if (p.instrumentId.admin !== registrar)
    return `the instrument's admin ${p.instrumentId.admin} is not the registrar ${registrar}`;
  return undefined;
}

function registrarOf(a: { operator: string; provider: string; registrar: string }): Registrar {
  return { operator: a.operator, provider: a.provider, registrar: a.registrar };
}

function checkOpen(tx: ChoiceContext, p: MintPayload, what: string): void {
  tx.require(tx.now < micros(p.executeBefore), `The ${what} expired at ${p.executeBefore}`);
}

const extraArgsChoice = (name: string) => T.record(name, { extraArgs: ExtraArgsT });

export const MintRequest = template<MintRequestArg>({
  pkg: PKG.registryApp,
  name: { module: 'Utility.Registry.App.V0.Model.Mint', entity: 'MintRequest' },
  argType: T.record('MintRequest', {
    operator: T.party,
    provider: T.party,
    registrar: T.party,
    mint: T.record('Mint', payloadFields),
  }),
  signatories: (a) => [a.mint.holder],
  observers: (a) => unique([a.registrar, a.operator, a.provider]),
  ensure: (a) => requestProblem(a.registrar, a.mint),
  choices: {
    MintRequest_Accept: {
      argType: extraArgsChoice('MintRequest_Accept'),
      consuming: true,
      controllers: (a) => [a.registrar],
      body: (tx, self: Contract<MintRequestArg>, arg: { extraArgs: ExtraArgs }) => {
        const m = self.arg.mint;
        checkOpen(tx, m, 'mint request');
        checkConfiguration(tx, arg.extraArgs, m.instrumentId);
        const holdingCid = tx.create(
          Holding,
          holdingArg(registrarOf(self.arg), m.holder, m.instrumentId, dec(m.amount)),
        );
        return { holdingCid };
      },
    },
    MintRequest_Reject: {
      argType: extraArgsChoice('MintRequest_Reject'),
      consuming: true,
      controllers: (a) => [a.registrar],
      body: () => ({}),
    },
    MintRequest_Withdraw: {
      argType: extraArgsChoice('MintRequest_Withdraw'),
      consuming: true,
      controllers: (a) => [a.mint.holder],
      body: () => ({}),
    },
  },
});

export const BurnRequest = template<BurnRequestArg>({
  pkg: PKG.registryApp,
  name: { module: 'Utility.Registry.App.V0.Model.Burn', entity: 'BurnRequest' },
  argType: T.record('BurnRequest', {
    operator: T.party,
    provider: T.party,
    registrar: T.party,
    burn: T.record('Burn', { ...payloadFields, inputHoldingCids: T.list(T.cid) }),
  }),
  signatories: (a) => [a.burn.holder],
  observers: (a) => unique([a.registrar, a.operator, a.provider]),
  ensure: (a) => requestProblem(a.registrar, a.burn),
  choices: {
    BurnRequest_Accept: {
      argType: extraArgsChoice('BurnRequest_Accept'),
      consuming: true,
      controllers: (a) => [a.registrar],
      body: (tx, self: Contract<BurnRequestArg>, arg: { extraArgs: ExtraArgs }) => {
        const b = self.arg.burn;
        checkOpen(tx, b, 'burn request');
        checkConfiguration(tx, arg.extraArgs, b.instrumentId);
        const value = dec(b.amount);
        const total = spendInputs(tx, b.inputHoldingCids, b.holder, b.instrumentId, value);
        const changeCids = createChange(tx, registrarOf(self.arg), b.holder, b.instrumentId, total, value);
        return { changeCids };
      },
    },
    BurnRequest_Reject: {
      argType: extraArgsChoice('BurnRequest_Reject'),
      consuming: true,
      controllers: (a) => [a.registrar],
      body: () => ({}),
    },
    BurnRequest_Withdraw: {
      argType: extraArgsChoice('BurnRequest_Withdraw'),
      consuming: true,
      controllers: (a) => [a.burn.holder],
      body: () => ({}),
    },
  },
});

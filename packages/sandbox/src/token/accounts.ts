/**
 * The wrapped-BTC account contracts (`cbtc` package, wrapped-api.md §8.4–§8.9, §10.4–§10.5): account rules the
 * gateway hands out, deposit accounts the attestors mint through (CompleteDeposit, after 6 confirmations),
 * withdraw accounts whose Withdraw choice burns holdings and raises the pending balance, and the withdraw
 * requests the attestors create with the Bitcoin transaction id. Limits are inclusive; Minter credentials are
 * required to open an account (cbtc 1.2.0) and checked on a burn when given.
 */
import { randomUUID } from 'node:crypto';
import { T } from '../ledger/lf.js';
import { type Contract, type TemplateDef, template } from '../ledger/model.js';
import type { ChoiceContext } from '../ledger/model.js';
import { MINTER_CLAIM, requireCredentials } from './credentials.js';
import { Holding, holdingArg } from './holding.js';
import { BurnMintFactoryI } from './interfaces.js';
import { PKG } from './packages.js';
import {
  CONTEXT,
  type ExtraArgs,
  ExtraArgsT,
  type InstrumentId,
  InstrumentIdT,
  type Limits,
  LimitsT,
  amount,
  contextCid,
  contextCids,
  dec,
} from './types.js';
import { Decimal } from 'decimal.js';

export interface RulesArg {
  operator: string;
  registrar: string;
  instrument: InstrumentId;
  limits: Limits | null;
}

export interface DepositAccountArg {
  registrar: string;
  operator: string;
  instrument: InstrumentId;
  owner: string;
  id: string | null;
  lastProcessedBitcoinBlock: string;
  limits: Limits | null;
}

export interface WithdrawAccountArg {
  registrar: string;
  operator: string;
  instrument: InstrumentId;
  owner: string;
  id: string | null;
  destinationBtcAddress: string;
  pendingBalance: string;
  limits: Limits | null;
}

export interface WithdrawRequestArg {
  owner: string;
  registrar: string;
  amount: string;
  destinationBtcAddress: string;
  btcTxId: string | null;
  sourceAccountId: string | null;
}

const RulesT = (name: string) =>
  T.record(name, {
    operator: T.party,
    registrar: T.party,
    instrument: InstrumentIdT,
    limits: T.optional(LimitsT),
  });

/** bech32 (bc1 / tb1 / bcrt1) or base58 legacy addresses */
const BTC_ADDRESS = /^((bc|tb|bcrt)1[02-9ac-hj-np-z]{8,87}|[123mn][1-9A-HJ-NP-Za-km-z]{25,34})$/;

export function checkLimits(
  tx: ChoiceContext,
  what: 'Deposit' | 'Withdraw',
  value: Decimal,
  limits: Limits | null,
): void {
  if (limits === null) return;
  if (limits.minAmount !== null && value.lessThan(dec(limits.minAmount))) {
    tx.fail(`${what} amount ${amount(value)} is below minimum ${limits.minAmount}`);
  }
  if (limits.maxAmount !== null && value.greaterThan(dec(limits.maxAmount))) {
    tx.fail(`${what} amount ${amount(value)} exceeds maximum ${limits.maxAmount}`);
  }
}

/** whether an amount lies within limits (the attestors check before they mint) */
export function withinLimits(value: Decimal, limits: Limits | null): boolean {
  if (limits === null) return true;
  if (limits.minAmount !== null && value.lessThan(dec(limits.minAmount))) return false;
  return !(limits.maxAmount !== null && value.greaterThan(dec(limits.maxAmount)));
}

export const DepositAccount: TemplateDef<DepositAccountArg> = template<DepositAccountArg>({
  pkg: PKG.cbtc,
  name: { module: 'CBTC.DepositAccount', entity: 'CBTCDepositAccount' },
  argType: T.record('CBTCDepositAccount', {
    registrar: T.party,
    operator: T.party,
    instrument: InstrumentIdT,
    owner: T.party,
    id: T.optional(T.text),
    lastProcessedBitcoinBlock: T.int,
    limits: T.optional(LimitsT),
  }),
  signatories: (a) => [...new Set([a.registrar, a.owner])],
  observers: (a) => [a.operator],
  choices: {
    CBTCDepositAccount_CompleteDeposit: {
      argType: T.record('CBTCDepositAccount_CompleteDeposit', {
        amount: T.numeric,
        bitcoinBlock: T.int,
        btcTxId: T.text,
        vout: T.int,
      }),
      consuming: true,
      controllers: (a) => [a.registrar],
      body: (tx, self, arg: { amount: string; bitcoinBlock: string; btcTxId: string }) => {
        const a = self.arg;
        const value = dec(arg.amount);
        tx.require(value.greaterThan(0), 'the deposit amount must be positive');
        checkLimits(tx, 'Deposit', value, a.limits);
        const r = { operator: a.operator, provider: a.registrar, registrar: a.registrar };
        const holdingCid = tx.create(Holding, holdingArg(r, a.owner, a.instrument, value));
        const block =
          BigInt(arg.bitcoinBlock) > BigInt(a.lastProcessedBitcoinBlock)
            ? arg.bitcoinBlock
            : a.lastProcessedBitcoinBlock;
        const depositAccountCid = tx.create(DepositAccount, { ...a, lastProcessedBitcoinBlock: block });
        return { holdingCid, depositAccountCid };
      },
    },
  },
});

export const DepositAccountRules = template<RulesArg>({
  pkg: PKG.cbtc,
  name: { module: 'CBTC.DepositAccount', entity: 'CBTCDepositAccountRules' },
  argType: RulesT('CBTCDepositAccountRules'),
  signatories: (a) => [a.registrar],
  observers: (a) => [a.operator],
  choices: {
    CBTCDepositAccountRules_CreateDepositAccount: {
      argType: T.record('CBTCDepositAccountRules_CreateDepositAccount', {
        owner: T.party,
        credentialCids: T.list(T.cid),
      }),
      consuming: false,
      controllers: (_a, arg: { owner: string }) => [arg.owner],
      body: (tx, self, arg: { owner: string; credentialCids: string[] }) => {
        requireCredentials(tx, arg.credentialCids, arg.owner, self.arg.registrar, MINTER_CLAIM);
        const depositAccountCid = tx.create(DepositAccount, {
          registrar: self.arg.registrar,
          operator: self.arg.operator,
          instrument: self.arg.instrument,
          owner: arg.owner,
          id: randomUUID(),
          lastProcessedBitcoinBlock: '0',
          limits: self.arg.limits,
        });
        return { depositAccountCid };
      },
    },
  },
});

export const WithdrawRequest = template<WithdrawRequestArg>({
  pkg: PKG.cbtc,
  name: { module: 'CBTC.WithdrawRequest', entity: 'CBTCWithdrawRequest' },
  argType: T.record('CBTCWithdrawRequest', {
    owner: T.party,
    registrar: T.party,
    amount: T.numeric,
    destinationBtcAddress: T.text,
    btcTxId: T.optional(T.text),
    sourceAccountId: T.optional(T.text),
  }),
  signatories: (a) => [a.registrar],
  observers: (a) => [a.owner],
});

export const WithdrawAccount: TemplateDef<WithdrawAccountArg> = template<WithdrawAccountArg>({
  pkg: PKG.cbtc,
  name: { module: 'CBTC.WithdrawAccount', entity: 'CBTCWithdrawAccount' },
  argType: T.record('CBTCWithdrawAccount', {
    registrar: T.party,
    operator: T.party,
    instrument: InstrumentIdT,
    owner: T.party,
    id: T.optional(T.text),
    destinationBtcAddress: T.text,
    pendingBalance: T.numeric,
    limits: T.optional(LimitsT),
  }),
  signatories: (a) => [...new Set([a.registrar, a.owner])],
  observers: (a) => [a.operator],
  choices: {
    CBTCWithdrawAccount_Withdraw: {
      argType: T.record('CBTCWithdrawAccount_Withdraw', {
        tokens: T.list(T.cid),
        amount: T.numeric,
        burnMintFactoryCid: T.cid,
        extraArgs: ExtraArgsT,
        credentialCids: T.optional(T.list(T.cid)),
      }),
      consuming: true,
      controllers: (a) => [a.owner],
      body: (
        tx,
        self,
        arg: {
          tokens: string[];
          amount: string;
          burnMintFactoryCid: string;
          extraArgs: ExtraArgs;
          credentialCids: string[] | null;
        },
      ) => {
        const a = self.arg;
        const value = dec(arg.amount);
        tx.require(value.greaterThan(0), 'the withdraw amount must be positive');
        checkLimits(tx, 'Withdraw', value, a.limits);
        if (arg.credentialCids !== null)
          requireCredentials(tx, arg.credentialCids, a.owner, a.registrar, MINTER_CLAIM);
        contextCid(tx, arg.extraArgs, CONTEXT.instrumentConfiguration, true);
        tx.require(
          contextCids(arg.extraArgs, CONTEXT.issuerCredentials).length > 0,
          `Missing context entry: ${CONTEXT.issuerCredentials}`,
        );
        tx.require(arg.tokens.length > 0, 'tokens must not be empty');
        let total = new Decimal(0);
        for (const cid of arg.tokens) {
          const holding = tx.fetch(cid, Holding, 'token');
          tx.require(
            holding.arg.owner === a.owner,
            `token ${cid} is owned by ${holding.arg.owner}, not ${a.owner}`,
          );
          tx.require(
            holding.arg.instrument.source === a.instrument.admin &&
              holding.arg.instrument.id === a.instrument.id,
            `token ${cid} is not ${a.instrument.id}`,
          );
          tx.require(holding.arg.lock === null, `token ${cid} is locked`);
          total = total.plus(dec(holding.arg.amount));
        }
        tx.require(
          total.greaterThanOrEqualTo(value),
          `Insufficient funds: the tokens total ${amount(total)}, less than ${amount(value)}`,
        );
        const change = total.minus(value);
        tx.exercise(
          arg.burnMintFactoryCid,
          'BurnMintFactory_BurnMint',
          {
            expectedAdmin: a.registrar,
            instrumentId: a.instrument,
            inputHoldingCids: arg.tokens,
            outputs: change.greaterThan(0)
              ? [{ owner: a.owner, amount: amount(change), context: 'withdraw change' }]
              : [],
            extraActors: [a.owner],
            extraArgs: arg.extraArgs,
          },
          BurnMintFactoryI,
        );
        const withdrawAccountCid = tx.create(WithdrawAccount, {
          ...a,
          pendingBalance: amount(dec(a.pendingBalance).plus(value)),
        });
        return { withdrawAccountCid };
      },
    },
    CBTCWithdrawAccount_ProcessWithdrawals: {
      argType: T.record('CBTCWithdrawAccount_ProcessWithdrawals', { btcTxId: T.optional(T.text) }),
      consuming: true,
      controllers: (a) => [a.registrar],
      body: (tx, self, arg: { btcTxId: string | null }) => {
        const a = self.arg;
        tx.require(dec(a.pendingBalance).greaterThan(0), 'nothing to withdraw: the pending balance is 0');
        const withdrawRequestCid = tx.create(WithdrawRequest, {
          owner: a.owner,
          registrar: a.registrar,
          amount: a.pendingBalance,
          destinationBtcAddress: a.destinationBtcAddress,
          btcTxId: arg.btcTxId,
          sourceAccountId: a.id,
        });
        const withdrawAccountCid = tx.create(WithdrawAccount, {
          ...a,
          pendingBalance: amount(new Decimal(0)),
        });
        return { withdrawRequestCid, withdrawAccountCid };
      },
    },
  },
});

export const WithdrawAccountRules = template<RulesArg>({
  pkg: PKG.cbtc,
  name: { module: 'CBTC.WithdrawAccount', entity: 'CBTCWithdrawAccountRules' },
  argType: RulesT('CBTCWithdrawAccountRules'),
  signatories: (a) => [a.registrar],
  observers: (a) => [a.operator],
  choices: {
    CBTCWithdrawAccountRules_CreateWithdrawAccount: {
      argType: T.record('CBTCWithdrawAccountRules_CreateWithdrawAccount', {
        owner: T.party,
        destinationBtcAddress: T.text,
        credentialCids: T.list(T.cid),
      }),
      consuming: false,
      controllers: (_a, arg: { owner: string }) => [arg.owner],
      body: (
        tx,
        self: Contract<RulesArg>,
        arg: { owner: string; destinationBtcAddress: string; credentialCids: string[] },
      ) => {
        tx.require(
          BTC_ADDRESS.test(arg.destinationBtcAddress),
          `destinationBtcAddress ${arg.destinationBtcAddress} is not a Bitcoin address`,
        );
        requireCredentials(tx, arg.credentialCids, arg.owner, self.arg.registrar, MINTER_CLAIM);
        const withdrawAccountCid = tx.create(WithdrawAccount, {
          registrar: self.arg.registrar,
          operator: self.arg.operator,
          instrument: self.arg.instrument,
          owner: arg.owner,
          id: randomUUID(),
          destinationBtcAddress: arg.destinationBtcAddress,
          pendingBalance: amount(new Decimal(0)),
          limits: self.arg.limits,
        });
        return { withdrawAccountCid };
      },
    },
  },
});

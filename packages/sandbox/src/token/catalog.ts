/** Every template and interface of the token, for the ledger's catalog. */
import { Catalog } from '../ledger/model.js';
import {
  DepositAccount,
  DepositAccountRules,
  WithdrawAccount,
  WithdrawAccountRules,
  WithdrawRequest,
} from './accounts.js';
import { Allocation } from './allocation.js';
import { Credential, CredentialOffer, UserService } from './credentials.js';
import { BurnMintFactory, Factory } from './factory.js';
import { AmuletRules } from './amulet.js';
import { Holding } from './holding.js';
import { BurnRequest, MintRequest } from './requests.js';
import {
  AllocationFactoryI,
  AllocationI,
  BurnMintFactoryI,
  HoldingI,
  TransferFactoryI,
  TransferInstructionI,
} from './interfaces.js';
import {
  AppRewardConfiguration,
  ExecutedTransfer,
  InstrumentConfiguration,
  TransferOffer,
  TransferPreapproval,
  TransferRule,
} from './transfer.js';

export function tokenCatalog(): Catalog {
  return new Catalog().add(
    HoldingI,
    TransferFactoryI,
    TransferInstructionI,
    AllocationFactoryI,
    AllocationI,
    BurnMintFactoryI,
    Holding,
    Factory,
    BurnMintFactory,
    TransferOffer,
    TransferPreapproval,
    ExecutedTransfer,
    InstrumentConfiguration,
    TransferRule,
    AppRewardConfiguration,
    Allocation,
    Credential,
    CredentialOffer,
    UserService,
    DepositAccountRules,
    DepositAccount,
    WithdrawAccountRules,
    WithdrawAccount,
    WithdrawRequest,
    MintRequest,
    BurnRequest,
    AmuletRules,
  );
}

/**
 * The wrapped-token gateway `/wrapped/v1/*` (wrapped-api.md §6), unauthenticated: the account rules and the
 * token-standard contracts (with their disclosure blobs), each deposit account's Bitcoin address (404 for an id
 * no active deposit account has), and the proof-of-reserves address data.
 */
import { json } from '../http/reply.js';
import { blobOf } from '../ledger/blob.js';
import type { Ledger } from '../ledger/ledger.js';
import { type Contract, type TemplateDef, packageIdForm } from '../ledger/model.js';
import { type BitcoinNetwork, depositAddress } from '../bitcoin/address.js';
import type { FaultBook } from '../faults.js';
import { type ServiceRoute, ServiceFailure } from '../service/route.js';
import {
  DepositAccount,
  type DepositAccountArg,
  DepositAccountRules,
  WithdrawAccountRules,
} from './accounts.js';
import { Credential } from './credentials.js';
import { BurnMintFactory } from './factory.js';
import { InstrumentConfiguration } from './transfer.js';
import type { World } from './world.js';

/** how many attestors the sandbox's attestor group has */
export const ATTESTORS = 3;

interface Env {
  ledger: Ledger;
  world: World;
  faults: FaultBook;
  network: BitcoinNetwork;
  cantonNetwork: string;
  catchUp(): Promise<void>;
}

function contractInfo(contract: Contract): Record<string, string> {
  return {
    contract_id: contract.cid,
    template_id: packageIdForm(contract.template.pkg, contract.template.name),
    created_event_blob: blobOf(contract),
  };
}

function first<A>(
  ledger: Ledger,
  template: TemplateDef<A>,
  match: (c: Contract<A>) => boolean,
  what: string,
): Contract<A> {
  for (const c of ledger.contractsOfTemplate(template)) if (match(c)) return c;
  throw new ServiceFailure(503, { error: `the gateway has no active ${what}` });
}

export function gatewayRoutes(env: Env): ServiceRoute[] {
  const admin = env.world.admin;
  const get = (template: string, handle: (params: Record<string, string>) => unknown): ServiceRoute => ({
    method: 'GET',
    template,
    handle: async ({ params }) => {
      await env.catchUp();
      return json(200, handle(params));
    },
  });
  const depositAccounts = (): Array<Contract<DepositAccountArg>> =>
    [...env.ledger.contractsOfTemplate(DepositAccount)].filter((a) => a.arg.registrar === admin);
  return [
    get('/wrapped/v1/account-contract-rules', () => ({
      da_rules: contractInfo(
        first(env.ledger, DepositAccountRules, (c) => c.arg.registrar === admin, 'deposit account rules'),
      ),
      wa_rules: contractInfo(
        first(env.ledger, WithdrawAccountRules, (c) => c.arg.registrar === admin, 'withdraw account rules'),
      ),
    })),
    get('/wrapped/v1/token-standard-contracts', () => ({
      burn_mint_factory: contractInfo(
        first(env.ledger, BurnMintFactory, (c) => c.arg.provider === admin, 'burn-mint factory'),
      ),
      instrument_configuration: contractInfo(
        first(
          env.ledger,
          InstrumentConfiguration,
          (c) => c.arg.registrar === admin,
          'instrument configuration',
        ),
      ),
      issuer_credential: contractInfo(
        first(
          env.ledger,
          Credential,
          (c) => c.arg.issuer === admin && c.arg.holder === admin,
          'issuer credential',
        ),
      ),
    })),
    get('/wrapped/v1/bitcoin-address/{accountId}', (params) => {
      const id = params.accountId ?? '';
      const account = depositAccounts().find((a) => a.arg.id === id || (a.arg.id === null && a.cid === id));
      if (account === undefined) throw new ServiceFailure(404, { error: `Deposit account ${id} not found` });
      const partial = env.faults.take('attestors-partial');
      return {
        bitcoin_address: depositAddress(env.network, id),
        attestors_requested: ATTESTORS,
        attestors_responded: partial === undefined ? ATTESTORS : Math.min(partial.responded, ATTESTORS),
      };
    }),
    get('/wrapped/v1/address-calculation-data', () => ({
      chains: [
        {
          chain: env.cantonNetwork,
          xpub: `tpubLedgerbookSandbox${env.cantonNetwork}`,
          addresses: depositAccounts().map((a) => {
            const id = a.arg.id ?? a.cid;
            return { id, address_for_verification: depositAddress(env.network, id) };
          }),
        },
      ],
      bitcoin_network: env.network,
    })),
  ];
}

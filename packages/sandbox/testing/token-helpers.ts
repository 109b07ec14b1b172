/**
 * Test helpers for the token half, over plain HTTP and WebSocket, with the request bodies the wrapped-token SDK
 * sends (wrapped-api.md §4, §7, §8) and the newer `eventFormat` shapes. A `Wallet` is one party acting through
 * its node's ledger API with that node's operator token; `Registry` and `Gateway` are the unauthenticated token
 * services. Nothing here knows the sandbox's internals.
 */
import { randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import WebSocket from 'ws';
import { Api, type World, waitFor } from './helpers.js';

export const HOLDING_INTERFACE = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding';
export const TRANSFER_FACTORY =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
export const TRANSFER_INSTRUCTION =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction';
export const ALLOCATION_FACTORY =
  '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory';
export const ALLOCATION = '#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation';
export const TRANSFER_OFFER = '#utility-registry-app-v0:Utility.Registry.App.V0.Model.Transfer:TransferOffer';
export const REGISTRY_HOLDING = '#utility-registry-holding-v0:Utility.Registry.Holding.V0.Holding:Holding';
export const DEPOSIT_ACCOUNT = '#cbtc:CBTC.DepositAccount:CBTCDepositAccount';
export const DEPOSIT_RULES = '#cbtc:CBTC.DepositAccount:CBTCDepositAccountRules';
export const WITHDRAW_ACCOUNT = '#cbtc:CBTC.WithdrawAccount:CBTCWithdrawAccount';
export const WITHDRAW_RULES = '#cbtc:CBTC.WithdrawAccount:CBTCWithdrawAccountRules';
export const WITHDRAW_REQUEST = '#cbtc:CBTC.WithdrawRequest:CBTCWithdrawRequest';
export const CREDENTIAL = '#utility-credential-v0:Utility.Credential.V0.Credential:Credential';
export const CREDENTIAL_OFFER =
  '#utility-credential-app-v0:Utility.Credential.App.V0.Model.Offer:CredentialOffer';
export const USER_SERVICE = '#utility-credential-app-v0:Utility.Credential.App.V0.Service.User:UserService';

export interface InstrumentId {
  admin: string;
  id: string;
}

export interface CreatedEvent {
  offset: number;
  nodeId: number;
  contractId: string;
  templateId: string;
  createArgument: Record<string, unknown> | null;
  createdEventBlob?: string;
  interfaceViews?: Array<{ interfaceId: string; viewValue?: Record<string, unknown> }>;
  witnessParties: string[];
  signatories: string[];
  observers: string[];
}

export interface ActiveContractEntry {
  workflowId: string;
  contractEntry: {
    JsActiveContract: { createdEvent: CreatedEvent; synchronizerId: string; reassignmentCounter: number };
  };
}

export interface HoldingView {
  owner: string;
  instrumentId: InstrumentId;
  amount: string;
  lock: unknown;
}

export interface Disclosed {
  templateId?: string;
  contractId: string;
  createdEventBlob: string;
  synchronizerId: string;
}

export type Filter =
  { template: string; blob?: boolean } | { interface: string; view?: boolean; blob?: boolean };

/** a cumulative filter entry as the SDK sends it */
export function cumulative(filter: Filter): Record<string, unknown> {
  if ('template' in filter) {
    return {
      identifierFilter: {
        TemplateFilter: {
          value: { templateId: filter.template, includeCreatedEventBlob: filter.blob ?? true },
        },
      },
    };
  }
  return {
    identifierFilter: {
      InterfaceFilter: {
        value: {
          interfaceId: filter.interface,
          includeInterfaceView: filter.view ?? true,
          includeCreatedEventBlob: filter.blob ?? true,
        },
      },
    },
  };
}

/** the SDK 0.6.x body (deprecated `filter` + `verbose`) or the newer `eventFormat` body */
export function acsBody(
  party: string,
  filter: Filter,
  offset: number,
  shape: 'legacy' | 'eventFormat',
): Record<string, unknown> {
  const filtersByParty = { [party]: { cumulative: [cumulative(filter)] } };
  return shape === 'legacy'
    ? { filter: { filtersByParty }, verbose: false, activeAtOffset: offset }
    : { eventFormat: { filtersByParty, verbose: false }, activeAtOffset: offset };
}

export interface TransactionEvent {
  contractId: string;
  templateId: string;
  nodeId: number;
  offset: number;
  createArgument?: Record<string, unknown> | null;
  exerciseResult?: unknown;
  choice?: string;
  consuming?: boolean;
  witnessParties: string[];
}

export interface TransactionBody {
  transaction: {
    updateId: string;
    commandId: string;
    offset: number;
    events: Array<Partial<Record<'CreatedEvent' | 'ExercisedEvent' | 'ArchivedEvent', TransactionEvent>>>;
  };
}

/** a TransferInstructionResult / AllocationInstructionResult */
export interface InstructionResult {
  output: { tag: string; value: Record<string, unknown> };
  senderChangeCids: string[];
}

export interface SubmitResult {
  status: number;
  /** a TransactionBody on 200, a JsCantonError otherwise */
  body: unknown;
  text: string;
}

export class Wallet {
  constructor(
    readonly party: string,
    readonly ledger: Api,
    private readonly tokenOf: () => Promise<string>,
  ) {}

  async token(): Promise<string> {
    return this.tokenOf();
  }

  async ledgerEnd(): Promise<number> {
    const response = await this.ledger.get<{ offset: number }>('/v2/state/ledger-end');
    if (response.status !== 200) throw new Error(`ledger-end ${response.status}: ${response.text}`);
    return response.body.offset;
  }

  /** LE then HTTP ACS (what the SDK does for accounts, credentials, requests) */
  async acs(filter: Filter, shape: 'legacy' | 'eventFormat' = 'legacy'): Promise<ActiveContractEntry[]> {
    const offset = await this.ledgerEnd();
    const response = await this.ledger.post<ActiveContractEntry[]>(
      '/v2/state/active-contracts',
      acsBody(this.party, filter, offset, shape),
    );
    if (response.status !== 200) throw new Error(`active-contracts ${response.status}: ${response.text}`);
    return response.body;
  }

  /** LE then WebSocket ACS (what the SDK does for holdings and offers): one frame per contract, then Close */
  async acsWs(filter: Filter, shape: 'legacy' | 'eventFormat' = 'legacy'): Promise<ActiveContractEntry[]> {
    const offset = await this.ledgerEnd();
    const frames = await wsRequest(
      this.ledger.base,
      '/v2/state/active-contracts',
      await this.token(),
      acsBody(this.party, filter, offset, shape),
    );
    const errors = frames.filter((f) => 'code' in (f as object));
    if (errors.length > 0) throw new Error(`active-contracts (WS) error frame: ${JSON.stringify(errors[0])}`);
    return frames as ActiveContractEntry[];
  }

  /** unlocked holdings of one instrument, by exact (admin, id), from the interface views */
  async holdings(
    instrument: InstrumentId,
  ): Promise<Array<{ contractId: string; view: HoldingView; blob: string | undefined }>> {
    const entries = await this.acsWs({ interface: HOLDING_INTERFACE });
    return entries
      .map((e) => e.contractEntry.JsActiveContract.createdEvent)
      .map((ev) => ({
        contractId: ev.contractId,
        view: ev.interfaceViews?.[0]?.viewValue as unknown as HoldingView,
        blob: ev.createdEventBlob,
      }))
      .filter((h) => h.view.owner === this.party && h.view.lock === null)
      .filter(
        (h) => h.view.instrumentId.admin === instrument.admin && h.view.instrumentId.id === instrument.id,
      );
  }

  async balance(instrument: InstrumentId): Promise<string> {
    const holdings = await this.holdings(instrument);
    return holdings.reduce((sum, h) => sum.plus(h.view.amount), new Decimal(0)).toFixed(10);
  }

  async submit(
    commands: unknown[],
    options: {
      disclosed?: Disclosed[];
      commandId?: string;
      extra?: Record<string, unknown>;
      shape?: string;
    } = {},
  ): Promise<SubmitResult> {
    const response = await this.ledger.post('/v2/commands/submit-and-wait-for-transaction', {
      commands: {
        actAs: [this.party],
        commandId: options.commandId ?? randomUUID(),
        // the SDK's DisclosedContract carries these four fields (the registry's debug fields are not forwarded)
        disclosedContracts: (options.disclosed ?? []).map((d) => ({
          ...(d.templateId ? { templateId: d.templateId } : {}),
          contractId: d.contractId,
          createdEventBlob: d.createdEventBlob,
          synchronizerId: d.synchronizerId,
        })),
        commands,
        ...options.extra,
      },
      transactionFormat: {
        eventFormat: { filtersByParty: { [this.party]: {} }, verbose: true },
        transactionShape: options.shape ?? 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
      },
    });
    return { status: response.status, body: response.body, text: response.text };
  }
}

export async function wsRequest(
  base: string,
  path: string,
  token: string,
  request: unknown,
  protocols?: string[],
): Promise<unknown[]> {
  const url = base.replace(/^http/, 'ws') + path;
  const ws = new WebSocket(url, protocols ?? [`jwt.token.${token}`, 'daml.ws.auth']);
  const frames: unknown[] = [];
  return new Promise((resolve, reject) => {
    ws.on('open', () => ws.send(JSON.stringify(request)));
    ws.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString('utf8'))));
    ws.on('close', () => resolve(frames));
    ws.on('error', reject);
  });
}

export class Registry {
  readonly api: Api;
  constructor(
    base: string,
    readonly admin: string,
  ) {
    this.api = new Api(`${base}/api/token-standard/v0/registrars/${admin}/registry`, () =>
      Promise.resolve(undefined),
    );
  }

  async transferFactory(
    choiceArguments: Record<string, unknown>,
  ): Promise<{ factoryId: string; transferKind: string; choiceContext: ChoiceContext }> {
    const response = await this.api.post<{
      factoryId: string;
      transferKind: string;
      choiceContext: ChoiceContext;
    }>('/transfer-instruction/v1/transfer-factory', { choiceArguments, excludeDebugFields: true });
    if (response.status !== 200) throw new Error(`transfer-factory ${response.status}: ${response.text}`);
    return response.body;
  }

  /** the SDK's body, quirk included: `{"meta":{"values":""}}` */
  async choiceContext(offerCid: string, choice: 'accept' | 'reject' | 'withdraw'): Promise<ChoiceContext> {
    const response = await this.api.post<ChoiceContext>(
      `/transfer-instruction/v1/${offerCid}/choice-contexts/${choice}`,
      { meta: { values: '' } },
    );
    if (response.status !== 200) throw new Error(`choice-context ${response.status}: ${response.text}`);
    return response.body;
  }
}

export interface ChoiceContext {
  choiceContextData: { values: Record<string, unknown> };
  disclosedContracts: Disclosed[];
}

export function isoIn(ms: number): string {
  return new Date(Date.now() + ms).toISOString();
}

/** the `TransferFactory_Transfer` argument the SDK builds (§8.11) */
export function transferArgument(
  admin: string,
  sender: string,
  receiver: string,
  amount: string,
  inputs: string[],
  options: { executeBefore?: string; meta?: Record<string, string> } = {},
): Record<string, unknown> {
  return {
    expectedAdmin: admin,
    transfer: {
      sender,
      receiver,
      amount,
      instrumentId: { admin, id: 'CBTC' },
      requestedAt: isoIn(-1000),
      executeBefore: options.executeBefore ?? isoIn(168 * 3600_000),
      inputHoldingCids: inputs,
      meta: { values: options.meta ?? { 'splice.lfdecentralizedtrust.org/reason': '' } },
    },
    extraArgs: { context: { values: {} }, meta: { values: {} } },
  };
}

/** registry factory + submit, as `transfer::submit` does; returns the submission's answer */
export async function transfer(
  wallet: Wallet,
  registry: Registry,
  receiver: string,
  amount: string,
  inputs: string[],
  options: { executeBefore?: string; commandId?: string; meta?: Record<string, string> } = {},
): Promise<SubmitResult & { transferKind: string }> {
  const argument = transferArgument(registry.admin, wallet.party, receiver, amount, inputs, options);
  const factory = await registry.transferFactory(argument);
  const choiceArgument = {
    ...argument,
    extraArgs: { context: factory.choiceContext.choiceContextData, meta: { values: {} } },
  };
  const result = await wallet.submit(
    [
      {
        ExerciseCommand: {
          templateId: TRANSFER_FACTORY,
          contractId: factory.factoryId,
          choice: 'TransferFactory_Transfer',
          choiceArgument,
        },
      },
    ],
    {
      disclosed: factory.choiceContext.disclosedContracts,
      ...(options.commandId ? { commandId: options.commandId } : {}),
    },
  );
  return { ...result, transferKind: factory.transferKind };
}

/** the root exercise result of a LEDGER_EFFECTS transaction */
export function rootResult<R = InstructionResult>(body: unknown): R {
  const events = (body as TransactionBody).transaction.events;
  return events.find((e) => e.ExercisedEvent !== undefined)?.ExercisedEvent?.exerciseResult as R;
}

/** the created events of a transaction of one template (by its `:Module:Entity` suffix) */
export function createdOf(body: unknown, suffix: string): TransactionEvent[] {
  return (body as TransactionBody).transaction.events
    .map((e) => e.CreatedEvent)
    .filter((e): e is TransactionEvent => e !== undefined && e.templateId.endsWith(suffix));
}

/** accepts / rejects / withdraws offers in one submission (the SDK batches 5), context fetched once */
export async function settleOffers(
  wallet: Wallet,
  registry: Registry,
  offers: string[],
  choice: 'TransferInstruction_Accept' | 'TransferInstruction_Reject' | 'TransferInstruction_Withdraw',
): Promise<SubmitResult> {
  const route =
    choice === 'TransferInstruction_Reject'
      ? 'reject'
      : choice === 'TransferInstruction_Withdraw'
        ? 'withdraw'
        : 'accept';
  const disclosed: Disclosed[] = [];
  let values: Record<string, unknown> = {};
  for (const offer of offers) {
    const context = await registry.choiceContext(offer, route);
    values = context.choiceContextData.values;
    for (const d of context.disclosedContracts)
      if (!disclosed.some((x) => x.contractId === d.contractId)) disclosed.push(d);
  }
  return wallet.submit(
    offers.map((cid) => ({
      ExerciseCommand: {
        templateId: TRANSFER_INSTRUCTION,
        contractId: cid,
        choice,
        choiceArgument: { extraArgs: { context: { values }, meta: { values: {} } } },
      },
    })),
    { disclosed },
  );
}

export interface TokenWorld {
  admin: string;
  instrument: InstrumentId;
  otherInstrument: InstrumentId;
  minter: string;
  faucet: string;
  preapproved: string;
  holders: string[];
  nodeOf: (party: string) => number;
}

/** the world as the admin API describes it */
interface WorldParty {
  party: string;
  node: string;
}

interface WorldResponse {
  instrument: InstrumentId;
  otherInstrument: InstrumentId;
  admin: WorldParty;
  minter: WorldParty;
  faucet: WorldParty;
  preapproved: WorldParty;
  otherAdmin: WorldParty;
  holders: WorldParty[];
  operators: WorldParty[];
}

export async function tokenWorld(world: World): Promise<TokenWorld> {
  const w = (await world.admin.get<WorldResponse>('/world')).body;
  const nodes = new Map<string, string>();
  for (const entry of [
    w.admin,
    w.minter,
    w.faucet,
    w.preapproved,
    w.otherAdmin,
    ...w.holders,
    ...w.operators,
  ])
    nodes.set(entry.party, entry.node);
  return {
    admin: w.admin.party,
    instrument: w.instrument,
    otherInstrument: w.otherInstrument,
    minter: w.minter.party,
    faucet: w.faucet.party,
    preapproved: w.preapproved.party,
    holders: w.holders.map((h) => h.party),
    nodeOf: (party) => Number((nodes.get(party) ?? 'node1').slice(4)) - 1,
  };
}

/** a wallet for a party, acting through the node that hosts it with that node's operator token */
export function walletFor(world: World, tokens: TokenWorld, party: string): Wallet {
  const i = tokens.nodeOf(party);
  return new Wallet(party, world.ledger[i] as Api, () => world.token(`operator${i + 1}`));
}

export async function waitForBalance(
  wallet: Wallet,
  instrument: InstrumentId,
  expected: string,
  timeoutMs = 10_000,
): Promise<void> {
  await waitFor(
    `${wallet.party} to hold ${expected}`,
    async () => (new Decimal(await wallet.balance(instrument)).equals(expected) ? true : undefined),
    timeoutMs,
    50,
  );
}

/** the Minter credential of a party: accepted from its free offer through its UserService (§8.3) when it has none */
export async function minterCredential(wallet: Wallet): Promise<string> {
  const minterClaim = (claims: unknown): boolean =>
    Array.isArray(claims) &&
    claims.some(
      (c: { property?: string; value?: string }) => c.property === 'hasCBTCRole' && c.value === 'Minter',
    );
  const owned = (await wallet.acs({ template: CREDENTIAL }))
    .map((e) => e.contractEntry.JsActiveContract.createdEvent)
    .filter((e) => e.createArgument?.holder === wallet.party && minterClaim(e.createArgument.claims));
  if (owned[0] !== undefined) return owned[0].contractId;
  const offer = (await wallet.acs({ template: CREDENTIAL_OFFER }))
    .map((e) => e.contractEntry.JsActiveContract.createdEvent)
    .find((e) => e.createArgument?.holder === wallet.party && minterClaim(e.createArgument.claims));
  const service = (await wallet.acs({ template: USER_SERVICE }))
    .map((e) => e.contractEntry.JsActiveContract.createdEvent)
    .find((e) => e.createArgument?.user === wallet.party);
  if (offer === undefined || service === undefined)
    throw new Error(`${wallet.party} has no Minter credential offer or UserService`);
  const accepted = await wallet.submit(
    [
      {
        ExerciseCommand: {
          templateId: service.templateId,
          contractId: service.contractId,
          choice: 'UserService_AcceptFreeCredentialOffer',
          choiceArgument: { credentialOfferCid: offer.contractId },
        },
      },
    ],
    { commandId: `cmd-${randomUUID()}` },
  );
  if (accepted.status !== 200) throw new Error(`accepting the credential offer: ${accepted.text}`);
  const created = createdOf(accepted.body, ':Utility.Credential.V0.Credential:Credential')[0];
  if (created === undefined) throw new Error('No Credential contract was created in the transaction');
  return created.contractId;
}

export interface ContractInfo {
  contract_id: string;
  template_id: string;
  created_event_blob: string;
}

export function disclose(info: ContractInfo): Disclosed {
  return {
    contractId: info.contract_id,
    createdEventBlob: info.created_event_blob,
    templateId: info.template_id,
    synchronizerId: '',
  };
}

export class Gateway {
  readonly api: Api;
  constructor(base: string) {
    this.api = new Api(base, () => Promise.resolve(undefined));
  }

  async rules(): Promise<{ da_rules: ContractInfo; wa_rules: ContractInfo }> {
    const response = await this.api.get<{ da_rules: ContractInfo; wa_rules: ContractInfo }>(
      '/wrapped/v1/account-contract-rules',
    );
    if (response.status !== 200)
      throw new Error(`account-contract-rules ${response.status}: ${response.text}`);
    return response.body;
  }

  async tokenStandardContracts(): Promise<
    Record<'burn_mint_factory' | 'instrument_configuration' | 'issuer_credential', ContractInfo>
  > {
    const response = await this.api.get<
      Record<'burn_mint_factory' | 'instrument_configuration' | 'issuer_credential', ContractInfo>
    >('/wrapped/v1/token-standard-contracts');
    if (response.status !== 200)
      throw new Error(`token-standard-contracts ${response.status}: ${response.text}`);
    return response.body;
  }

  async address(
    accountId: string,
  ): Promise<{ bitcoin_address: string; attestors_requested: number; attestors_responded: number }> {
    const response = await this.api.get<{
      bitcoin_address: string;
      attestors_requested: number;
      attestors_responded: number;
    }>(`/wrapped/v1/bitcoin-address/${encodeURIComponent(accountId)}`);
    if (response.status !== 200) throw new Error(`bitcoin-address ${response.status}: ${response.text}`);
    return response.body;
  }
}

/** creates a deposit account (§8.4) and returns its contract id and account id */
export async function createDepositAccount(
  wallet: Wallet,
  gateway: Gateway,
  credential: string,
): Promise<{ cid: string; id: string }> {
  const { da_rules } = await gateway.rules();
  const result = await wallet.submit(
    [
      {
        ExerciseCommand: {
          templateId: DEPOSIT_RULES,
          contractId: da_rules.contract_id,
          choice: 'CBTCDepositAccountRules_CreateDepositAccount',
          choiceArgument: { owner: wallet.party, credentialCids: [credential] },
        },
      },
    ],
    { disclosed: [disclose(da_rules)], commandId: `cmd-${randomUUID()}` },
  );
  if (result.status !== 200) throw new Error(`create deposit account: ${result.text}`);
  const account = createdOf(result.body, ':CBTC.DepositAccount:CBTCDepositAccount')[0];
  if (account === undefined) throw new Error('No DepositAccount was created in the transaction');
  return { cid: account.contractId, id: String(account.createArgument?.id) };
}

/** creates a withdraw account (§8.7) to a Bitcoin address */
export async function createWithdrawAccount(
  wallet: Wallet,
  gateway: Gateway,
  credential: string,
  destination: string,
): Promise<string> {
  const { wa_rules } = await gateway.rules();
  const result = await wallet.submit(
    [
      {
        ExerciseCommand: {
          templateId: WITHDRAW_RULES,
          contractId: wa_rules.contract_id,
          choice: 'CBTCWithdrawAccountRules_CreateWithdrawAccount',
          choiceArgument: {
            owner: wallet.party,
            destinationBtcAddress: destination,
            credentialCids: [credential],
          },
        },
      },
    ],
    { disclosed: [disclose(wa_rules)], commandId: `cmd-${randomUUID()}` },
  );
  if (result.status !== 200) throw new Error(`create withdraw account: ${result.text}`);
  const account = createdOf(result.body, ':CBTC.WithdrawAccount:CBTCWithdrawAccount')[0];
  if (account === undefined) throw new Error('No WithdrawAccount was created in the transaction');
  return account.contractId;
}

/** the burn (§8.8): CBTCWithdrawAccount_Withdraw with the holdings as tokens */
export async function burn(
  wallet: Wallet,
  gateway: Gateway,
  account: string,
  tokens: string[],
  amount: string,
  credential: string | null,
): Promise<SubmitResult> {
  const contracts = await gateway.tokenStandardContracts();
  return wallet.submit(
    [
      {
        ExerciseCommand: {
          templateId: WITHDRAW_ACCOUNT,
          contractId: account,
          choice: 'CBTCWithdrawAccount_Withdraw',
          choiceArgument: {
            tokens,
            amount,
            burnMintFactoryCid: contracts.burn_mint_factory.contract_id,
            extraArgs: {
              context: {
                values: {
                  'utility.digitalasset.com/instrument-configuration': {
                    tag: 'AV_ContractId',
                    value: contracts.instrument_configuration.contract_id,
                  },
                  'utility.digitalasset.com/issuer-credentials': {
                    tag: 'AV_List',
                    value: [{ tag: 'AV_ContractId', value: contracts.issuer_credential.contract_id }],
                  },
                },
              },
              meta: { values: { 'splice.lfdecentralizedtrust.org/reason': 'CBTC withdrawal' } },
            },
            credentialCids: credential === null ? null : [credential],
          },
        },
      },
    ],
    {
      disclosed: [
        contracts.burn_mint_factory,
        contracts.instrument_configuration,
        contracts.issuer_credential,
      ].map(disclose),
      commandId: `cmd-${randomUUID()}`,
    },
  );
}

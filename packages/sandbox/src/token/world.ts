/**
 * The sandbox world, the same in every sandbox (derived from a fixed seed and the node names, like the
 * participant ids): the instrument admin `cbtc-network::…` with the registry's and the gateway's contracts, a
 * minter on node1 with a UserService and a free Minter credential offer, holders on the other nodes, a receiver
 * with a transfer preapproval, a faucet, and a second `CBTC` instrument under another admin. Parties, users and
 * rights are ensured at every start (a sandbox started with more nodes gains their operators); the contracts
 * are created once, in the genesis transaction, whose fixed update id fixes every contract id.
 */
import { Decimal } from 'decimal.js';
import type { Right, UserRecord } from '../ledger/entries.js';
import { type Command, type Ledger, digestId } from '../ledger/ledger.js';
import type { TemplateDef } from '../ledger/model.js';
import { DepositAccountRules, WithdrawAccountRules } from './accounts.js';
import { Credential, CredentialOffer, MINTER_CLAIM, UserService } from './credentials.js';
import { BurnMintFactory, Factory } from './factory.js';
import { AmuletRules } from './amulet.js';
import { Holding, holdingArg } from './holding.js';
import {
  AppRewardConfiguration,
  InstrumentConfiguration,
  TransferPreapproval,
  TransferRule,
} from './transfer.js';
import type { InstrumentId, Limits } from './types.js';

const WORLD_SEED = 'ledgerbook-sandbox/world/v1';

/** how many holder parties the world has (a 500-recipient distribution fits) */
export const HOLDER_COUNT = 600;

/** the limits of the account rules: 0.0001 to 5 BTC per deposit or withdrawal (wrapped-api.md §8.4) */
export const DEFAULT_LIMITS: Limits = { minAmount: '0.0001000000', maxAmount: '5.0000000000' };

export interface WorldNode {
  name: string;
  participantId: string;
  /** the ledger user ids of this node's operator (the IdP `sub` of operatorN) and the CI client */
  operatorUser: string;
  ciUser: string;
  /** the ledger user of this node's own admin client (`nodeN-admin`'s service account): on this participant only */
  adminUser?: string;
  viewerUser: string;
}

export interface World {
  admin: string;
  operator: string;
  dso: string;
  otherAdmin: string;
  faucet: string;
  minter: string;
  preapproved: string;
  holders: string[];
  /** the DPM's operator party of each node (operatorN::<its namespace>) */
  operators: string[];
  instrument: InstrumentId;
  otherInstrument: InstrumentId;
  /** the node whose participant hosts each world party */
  hostOf: Map<string, string>;
  /** the genesis transaction's update id */
  genesis: string;
  /** whether the instrument is a network's own (a fork's), not the sandbox's `cbtc-network` CBTC */
  adopted: boolean;
}

/** A network's own instrument the world adopts (a fork's): its admin, hosted on the named node, and its id. */
export interface AdoptedInstrument {
  admin: string;
  id: string;
  host: string;
}

function globalParty(hint: string): string {
  return `${hint}::1220${digestId(`${WORLD_SEED}/party/${hint}`)}`;
}

function localParty(hint: string, participantId: string): string {
  return `${hint}::${participantId.slice(participantId.indexOf('::') + 2)}`;
}

export function holderName(i: number): string {
  return `holder-${String(i).padStart(3, '0')}`;
}

/**
 * The world's parties for these nodes (pure: the same nodes give the same world). With an adopted instrument the
 * admin is the network's and the genesis transaction is another (its contract ids are derived from the instrument);
 * without, every id is the sandbox's own, byte for byte.
 */
export function describeWorld(nodes: WorldNode[], adopted?: AdoptedInstrument): World {
  const first = nodes[0];
  if (first === undefined) throw new RangeError('the world needs at least one node');
  const others = nodes.length > 1 ? nodes.slice(1) : nodes;
  const hostOf = new Map<string, string>();
  const on = (party: string, node: WorldNode): string => {
    hostOf.set(party, node.name);
    return party;
  };
  const admin = adopted
    ? on(adopted.admin, nodes.find((n) => n.name === adopted.host) ?? first)
    : on(globalParty('cbtc-network'), first);
  const holders = Array.from({ length: HOLDER_COUNT }, (_, i) => {
    const node = others[i % others.length] as WorldNode;
    return on(localParty(holderName(i + 1), node.participantId), node);
  });
  return {
    admin,
    operator: on(globalParty('utility-operator'), first),
    dso: on(globalParty('DSO'), first),
    otherAdmin: on(globalParty('cbtc-other'), first),
    faucet: on(localParty('faucet', first.participantId), first),
    minter: on(localParty('minter', first.participantId), first),
    preapproved: on(localParty('preapproved', (others[0] ?? first).participantId), others[0] ?? first),
    holders,
    operators: nodes.map((n, i) => on(localParty(`operator${i + 1}`, n.participantId), n)),
    instrument: { admin, id: adopted?.id ?? 'CBTC' },
    otherInstrument: { admin: globalParty('cbtc-other'), id: 'CBTC' },
    hostOf,
    genesis: adopted
      ? `1220${digestId(`${WORLD_SEED}/genesis/${adopted.admin}/${adopted.id}`)}`
      : `1220${digestId(`${WORLD_SEED}/genesis`)}`,
    adopted: adopted !== undefined,
  };
}

/** infrastructure parties no ledger user may act as (sandbox automation acts as them in-process) */
function infrastructure(world: World): Set<string> {
  return new Set([world.admin, world.operator, world.dso, world.otherAdmin, world.faucet]);
}

/**
 * Ensures the world exists on the ledger: its parties, each node's users and their rights, and (on a new
 * ledger) the genesis contracts.
 */
export async function ensureWorld(ledger: Ledger, nodes: WorldNode[], world: World): Promise<void> {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  for (const [party, nodeName] of world.hostOf) {
    const node = byName.get(nodeName) as WorldNode;
    if (ledger.hosting(party)[node.participantId] === undefined)
      ledger.allocateParty(party, node.participantId, 'submission');
  }
  const infra = infrastructure(world);
  for (const node of nodes) {
    const actAs = [...world.hostOf]
      .filter(([party, host]) => host === node.name && !infra.has(party))
      .map(([party]) => party);
    const rights: Right[] = [
      { kind: 'ParticipantAdmin' },
      ...actAs.map((party): Right => ({ kind: 'CanActAs', party })),
    ];
    // an operator reads every party its participant hosts (its decentralized parties too), as it does on Canton
    ensureUser(
      ledger,
      node.participantId,
      node.operatorUser,
      [...rights, { kind: 'CanReadAsAnyParty' }],
      localParty(`operator${nodes.indexOf(node) + 1}`, node.participantId),
    );
    ensureUser(ledger, node.participantId, node.ciUser, rights, undefined);
    if (node.adminUser !== undefined)
      ensureUser(ledger, node.participantId, node.adminUser, rights, undefined);
    // the peers' read-only login reads every party of the participant, as a monitoring login does on Canton
    ensureUser(ledger, node.participantId, node.viewerUser, [{ kind: 'CanReadAsAnyParty' }], undefined);
  }
  if (
    !ledger.deduplicated('sandbox-genesis', genesisActAs(world), 'sandbox-genesis') &&
    ledger.active(genesisCid(world, 0)) === undefined
  ) {
    await genesis(ledger, nodes[0] as WorldNode, world);
  }
  await ensureAmuletRules(ledger, nodes[0] as WorldNode, world);
}

/** the DSO's AmuletRules, created once (in its own transaction: worlds created before it keep their genesis) */
async function ensureAmuletRules(ledger: Ledger, first: WorldNode, world: World): Promise<void> {
  if ([...ledger.contractsOfTemplate(AmuletRules)].length > 0) return;
  if (ledger.deduplicated('sandbox-genesis', [world.dso], 'sandbox-amulet-rules') !== undefined) return;
  await ledger.submit({
    participant: first.participantId,
    userId: 'sandbox-genesis',
    actAs: [world.dso],
    commandId: 'sandbox-amulet-rules',
    commands: [{ kind: 'create', template: AmuletRules, arg: { dso: world.dso } }],
    internal: true,
    updateId: `1220${digestId(`${WORLD_SEED}/amulet-rules`)}`,
  });
}

/** Adds missing rights (never removes what an operator granted since). */
function ensureUser(
  ledger: Ledger,
  participant: string,
  id: string,
  rights: Right[],
  primaryParty: string | undefined,
): void {
  const existing = ledger.user(participant, id);
  const has = (r: Right) => existing?.rights.some((x) => x.kind === r.kind && x.party === r.party) ?? false;
  const missing = rights.filter((r) => !has(r));
  if (existing !== undefined && missing.length === 0) return;
  const user: UserRecord = existing ?? {
    id,
    ...(primaryParty ? { primaryParty } : {}),
    isDeactivated: false,
    annotations: {},
    rights: [],
    resourceVersion: 0,
  };
  ledger.putUser(participant, { ...user, rights: [...user.rights, ...missing] });
}

function genesisActAs(world: World): string[] {
  return [
    world.admin,
    world.otherAdmin,
    world.operator,
    world.minter,
    world.faucet,
    world.preapproved,
    world.holders[0] as string,
  ];
}

/** the id of the n-th contract the genesis transaction creates */
export function genesisCid(world: World, node: number): string {
  return `00${digestId(`${world.genesis}/${node}`)}`;
}

async function genesis(ledger: Ledger, first: WorldNode, world: World): Promise<void> {
  const r = { operator: world.operator, provider: world.admin, registrar: world.admin };
  const other = { operator: world.operator, provider: world.otherAdmin, registrar: world.otherAdmin };
  const create = <A>(template: TemplateDef<A>, arg: A): Command => ({ kind: 'create', template, arg });
  const alice = world.holders[0] as string;
  const commands: Command[] = [
    create(Factory, { operator: world.operator, provider: world.admin }),
    create(BurnMintFactory, { operator: world.operator, provider: world.admin }),
    create(InstrumentConfiguration, {
      operator: world.operator,
      registrar: world.admin,
      instrumentId: world.instrument,
      name: 'CBTC',
      symbol: 'CBTC',
      decimals: '10',
    }),
    create(TransferRule, {
      operator: world.operator,
      registrar: world.admin,
      instrumentId: world.instrument,
    }),
    create(AppRewardConfiguration, { operator: world.operator, provider: world.admin, featured: true }),
    create(Credential, {
      issuer: world.admin,
      holder: world.admin,
      id: 'cbtc-issuer',
      description: 'CBTC issuer',
      claims: [{ subject: world.admin, property: 'hasCBTCRole', value: 'Issuer' }],
      validFrom: null,
      validUntil: null,
      observers: [],
    }),
    create(DepositAccountRules, {
      operator: world.operator,
      registrar: world.admin,
      instrument: world.instrument,
      limits: DEFAULT_LIMITS,
    }),
    create(WithdrawAccountRules, {
      operator: world.operator,
      registrar: world.admin,
      instrument: world.instrument,
      limits: DEFAULT_LIMITS,
    }),
    create(UserService, { operator: world.operator, user: world.minter, dso: world.dso }),
    create(CredentialOffer, {
      operator: world.operator,
      issuer: world.admin,
      holder: world.minter,
      dso: world.dso,
      id: 'cbtc-minter',
      description: 'CBTC Minter',
      claims: [{ subject: world.minter, ...MINTER_CLAIM }],
      billingParams: null,
    }),
    create(TransferPreapproval, {
      operator: world.operator,
      provider: world.admin,
      receiver: world.preapproved,
      instrumentId: world.instrument,
    }),
    create(Holding, holdingArg(r, world.faucet, world.instrument, new Decimal(1_000_000))),
    create(Holding, holdingArg(r, world.minter, world.instrument, new Decimal(100))),
    create(Holding, holdingArg(r, alice, world.instrument, new Decimal(1))),
    create(InstrumentConfiguration, {
      operator: world.operator,
      registrar: world.otherAdmin,
      instrumentId: world.otherInstrument,
      name: 'CBTC',
      symbol: 'CBTC',
      decimals: '10',
    }),
    create(Holding, holdingArg(other, alice, world.otherInstrument, new Decimal(1))),
    create(Holding, holdingArg(other, alice, world.otherInstrument, new Decimal(1))),
  ];
  await ledger.submit({
    participant: first.participantId,
    userId: 'sandbox-genesis',
    actAs: genesisActAs(world),
    commandId: 'sandbox-genesis',
    commands: world.adopted ? commands.filter((c) => !copiedRules(ledger, world, c)) : commands,
    internal: true,
    updateId: world.genesis,
  });
}

/** the templates of the admin's rules contracts: one of each per admin, which a network's copy may already have */
export const RULES: readonly TemplateDef[] = [
  Factory,
  BurnMintFactory,
  InstrumentConfiguration,
  TransferRule,
  AppRewardConfiguration,
  DepositAccountRules,
  WithdrawAccountRules,
];

/**
 * Whether a genesis command would create a second rules contract of the adopted admin: the network's own was
 * copied (the same template, the admin its provider or registrar), and the copy uses it instead.
 */
export function copiedRules(ledger: Ledger, world: World, command: Command): boolean {
  if (command.kind !== 'create' || !RULES.includes(command.template)) return false;
  return [...ledger.contractsOfTemplate(command.template)].some((c) => adminOf(c.arg) === world.admin);
}

/** the party a rules contract serves: its registrar, else its provider */
export function adminOf(arg: unknown): string | undefined {
  const a = arg as { provider?: string; registrar?: string };
  return a.registrar ?? a.provider;
}

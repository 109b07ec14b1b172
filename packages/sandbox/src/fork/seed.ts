/**
 * Seeds a new state dir from a fork snapshot (snapshot.ts), before the sandbox starts on it: the nodes' identities
 * (the network's node names and participant ids), canton.json (decentralized parties, packages uploaded and vetted
 * per participant) and the ledger's first snapshot (the parties with their hosting, the copied contracts under their
 * original contract ids, the ledger end of the network, every earlier offset pruned: the copy's history starts at
 * the fork). What needs the copy's own identity provider — each node's DPM tables, whose party configurations are
 * rewritten to the copy's credentials — is written by `writeNodeTables` once the provider listens, and what needs
 * the running ledger (rights of the copy's logins, the simulated world reconciled with what was read) by
 * `finishFork`. The network's secrets are never in the snapshot, so none reaches the copy.
 */
import { createReadStream, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { PartyOwner, PartyRecord, Permission } from '../canton.js';
import { ownerKeyOf, prefixOf } from '../dpm/keys.js';
import type { PartyCredentials, PendingInvitation, Peer, RunRow } from '../dpm/types.js';
import { stateError, usageError } from '../errors.js';
import { nodeIdentity, type StoredNode } from '../identity.js';
import type { Snapshot, StoredContract, TxEntry } from '../ledger/entries.js';
import { readBlob } from '../ledger/blob.js';
import { decode, LfError } from '../ledger/lf.js';
import type { Catalog } from '../ledger/model.js';
import { packageIdForm } from '../ledger/model.js';
import { readJson, writeJsonAtomic } from '../store.js';
import { REWARDS_HISTORY_FILE, type RewardsHistory } from '../token/rewards-api.js';
import { CHAIN_NS, type Deposit, type DepositStatus } from '../bitcoin/chain.js';
import { FORK_SNAPSHOT_VERSION, type ForkHeader, type ForkRecord, type ForkSummary } from './snapshot.js';

export const FORK_FILE = 'fork.json';

/** what the running sandbox still does with a fork on its first start */
export interface ForkSeed {
  header: ForkHeader;
  summary: ForkSummary;
  /** per node: the DPM tables as read (party configurations without secrets) */
  tables: Map<string, NodeTables>;
  /** the parties whose contracts were read in full, and the ids copied */
  readParties: Set<string>;
  copiedContracts: Set<string>;
  /** the gateway's account rules contracts as read (their ids): the copy's world should have the same */
  rulesContracts: string[];
}

export interface NodeTables {
  peers: Peer[];
  partyConfigs: PartyConfigRead[];
  runs: RunRow[];
  invitations: PendingInvitation[];
}

/** GET /party-config as read: which secrets the node holds, never their values (dpm-api.md §3) */
export interface PartyConfigRead {
  dec_party_id: string;
  member_party_id?: string | null;
  user_id?: string | null;
  keycloak_client_id?: string;
  has_client_secret?: boolean;
  has_username?: boolean;
}

/** The copy's credentials the nodes' party configurations are rewritten to. */
export interface CopyCredentials {
  keycloakUrl: string;
  realm: string;
  clientId: string;
  clientSecret: string;
  /** operatorN's user name and password, by node index */
  operator(index: number): { username: string; password: string };
}

/** whether the state dir holds a sandbox already (a fork is seeded only into a new one) */
export function hasSandbox(stateDir: string): boolean {
  return ['identity.json', 'canton.json', 'ledger'].some((name) => existsSync(join(stateDir, name)));
}

/** Refuses a state dir that holds a sandbox (a fork or not): a fork is seeded into a new one only. */
export function checkForkable(stateDir: string): void {
  const fork = forkOf(stateDir);
  if (fork !== undefined || hasSandbox(stateDir)) {
    throw usageError(
      `the state dir ${stateDir} already holds a sandbox${fork ? ' (a fork)' : ''}: a fork is seeded into a new one only`,
      'start it without --fork to use it as it is, or give --state-dir a new folder to fork again',
    );
  }
}

/** the fork a state dir was seeded from, if it was */
export function forkOf(stateDir: string): ForkSummary | undefined {
  const file = join(stateDir, FORK_FILE);
  const summary = readJson<ForkSummary>(file);
  if (summary === undefined || isForkSummary(summary)) return summary;
  throw stateError(
    `sandbox state ${file} is not what a fork records (its source, read time, and counts with at least one node)`,
    'the file was edited or is corrupt; fork again into a fresh --state-dir',
  );
}

function isForkSummary(value: unknown): value is ForkSummary {
  if (typeof value !== 'object' || value === null) return false;
  const { source, readAt, copied, notCopied, unread, simulated } = value as Record<string, unknown>;
  const counts = (v: unknown): boolean =>
    typeof v === 'object' &&
    v !== null &&
    Object.values(v).every((n) => Number.isInteger(n) && (n as number) >= 0);
  const texts = (v: unknown): boolean => Array.isArray(v) && v.every((t) => typeof t === 'string');
  return (
    typeof source === 'object' &&
    source !== null &&
    typeof (source as Record<string, unknown>)['name'] === 'string' &&
    typeof (source as Record<string, unknown>)['network'] === 'string' &&
    typeof readAt === 'string' &&
    counts(copied) &&
    Number.isInteger((copied as Record<string, unknown>)['nodes']) &&
    ((copied as Record<string, number>)['nodes'] ?? 0) >= 1 &&
    counts(notCopied) &&
    texts(unread) &&
    texts(simulated)
  );
}

/**
 * Reads the snapshot and writes identity.json, canton.json and the ledger's first snapshot into `stateDir`, which
 * must hold no sandbox yet.
 */
export async function seedFork(stateDir: string, snapshotFile: string, catalog: Catalog): Promise<ForkSeed> {
  checkForkable(stateDir);
  const read = await readSnapshot(snapshotFile, catalog);
  const { header } = read;
  const identities: StoredNode[] = header.nodes.map((node, i) => ({
    ...nodeIdentity(i),
    name: node.name,
    participantId: node.participantId,
    ...(read.publicKeys.get(node.name) ? { publicKey: read.publicKeys.get(node.name) as string } : {}),
  }));
  writeJsonAtomic(join(stateDir, 'identity.json'), { version: 1, nodes: identities }, 0o600);
  writeJsonAtomic(join(stateDir, 'canton.json'), {
    version: 1,
    parties: [...read.decentralized.values()],
    packages: Object.fromEntries(read.packages),
  });
  const end = Math.max(0, ...read.ledgerEnds);
  const snapshot: Snapshot = {
    version: 1,
    end,
    pruned: end,
    contracts: read.contracts,
    parties: [...read.hosting].map(([party, hosting]) => ({ party, hosting })),
    users: {},
    dedup: [],
    notes: { [CHAIN_NS]: chainState(read.deposits, read.chainTip, Date.parse(header.readAt)) },
    segments: { '1': end + 1 },
  };
  writeJsonAtomic(join(stateDir, 'ledger', 'snapshot-000001.json'), snapshot);
  if (read.archived.length > 0) {
    writeFileSync(
      join(stateDir, 'ledger', 'log-000001.ndjson'),
      `${JSON.stringify(prehistory(read, end))}\n`,
    );
  }
  if (read.rewardsDays > 0) writeJsonAtomic(join(stateDir, REWARDS_HISTORY_FILE), read.rewards);
  const tables = [...read.tables.values()];
  const summary: ForkSummary = {
    source: header.source,
    readAt: header.readAt,
    copied: {
      nodes: header.nodes.length,
      'decentralized parties': read.decentralized.size,
      parties: read.hosting.size,
      packages: new Set([...read.packages.values()].flatMap((p) => Object.keys(p.uploaded))).size,
      contracts: read.contracts.length,
      'archived contracts': read.archived.length,
      'party configs': tables.reduce((n, t) => n + t.partyConfigs.length, 0),
      'workflow runs': tables.reduce((n, t) => n + t.runs.length, 0),
      invitations: tables.reduce((n, t) => n + t.invitations.length, 0),
      'rewards days': read.rewardsDays,
      'bitcoin deposits': read.deposits.length,
    },
    notCopied: Object.fromEntries(read.notCopied),
    unread: read.unread,
    simulated: [
      "the Bitcoin chain and the attestors (the deposits to the target's deposit addresses are copied)",
      'the registry and gateway rules contracts and the other contracts no target party sees (the sandbox world)',
      'the identity provider and every credential (the copy has its own)',
    ],
  };
  return {
    header,
    summary,
    tables: read.tables,
    readParties: read.readParties,
    copiedContracts: new Set(read.contracts.map((c) => c.cid)),
    rulesContracts: read.rulesContracts,
  };
}

/** Writes each node's DPM tables, the party configurations pointing at the copy's provider and credentials. */
export function writeNodeTables(stateDir: string, seed: ForkSeed, credentials: CopyCredentials): void {
  for (const [i, node] of seed.header.nodes.entries()) {
    const tables = seed.tables.get(node.name) ?? { peers: [], partyConfigs: [], runs: [], invitations: [] };
    const partyCredentials = tables.partyConfigs.map((read): PartyCredentials => {
      const login = credentials.operator(i);
      return {
        dec_party_id: read.dec_party_id,
        member_party_id: read.member_party_id ?? '',
        user_id: read.user_id ?? '',
        keycloak_url: credentials.keycloakUrl,
        keycloak_realm: credentials.realm,
        keycloak_client_id: read.keycloak_client_id || credentials.clientId,
        ...(read.has_client_secret === true ? { keycloak_client_secret: credentials.clientSecret } : {}),
        ...(read.has_username === true
          ? { keycloak_username: login.username, keycloak_password: login.password }
          : {}),
      };
    });
    writeJsonAtomic(
      join(stateDir, 'nodes', `${node.name}.json`),
      {
        version: 1,
        peers: tables.peers,
        party_credentials: partyCredentials,
        runs: tables.runs,
        invitations: tables.invitations,
        party_cache: [],
      },
      0o600,
    );
  }
}

/** Records the fork in the state dir: from now on it is an ordinary sandbox's (fork.json says where it came from). */
export function recordFork(stateDir: string, summary: ForkSummary): void {
  writeJsonAtomic(join(stateDir, FORK_FILE), summary);
}

interface SnapshotRead {
  header: ForkHeader;
  publicKeys: Map<string, string>;
  decentralized: Map<string, PartyRecord>;
  packages: Map<string, { uploaded: Record<string, PackageEntry>; vetted: string[] }>;
  ledgerEnds: number[];
  hosting: Map<string, Record<string, Permission>>;
  contracts: StoredContract[];
  /** contracts archived before the fork that the network still knows (a mint's holding spent since) */
  archived: StoredContract[];
  notCopied: Map<string, number>;
  readParties: Set<string>;
  tables: Map<string, NodeTables>;
  unread: string[];
  rewardsDays: number;
  rewards: RewardsHistory;
  deposits: Deposit[];
  /** the network chain's height when it was read: the newest block a deposit's confirmations reach */
  chainTip: number;
  rulesContracts: string[];
}

interface PackageEntry {
  packageId: string;
  name: string;
  version: string;
  templates: string[];
}

async function readSnapshot(file: string, catalog: Catalog): Promise<SnapshotRead> {
  let header: ForkHeader | undefined;
  const participantOf = new Map<string, string>();
  const out: Omit<SnapshotRead, 'header'> = {
    publicKeys: new Map(),
    decentralized: new Map(),
    packages: new Map(),
    ledgerEnds: [],
    hosting: new Map(),
    contracts: [],
    archived: [],
    notCopied: new Map(),
    readParties: new Set(),
    tables: new Map(),
    unread: [],
    rewardsDays: 0,
    rewards: {},
    deposits: [],
    chainTip: 0,
    rulesContracts: [],
  };
  const seen = new Set<string>();
  const packagesOf = (node: string) => {
    const participant = participantOf.get(node) ?? node;
    let entry = out.packages.get(participant);
    if (entry === undefined) out.packages.set(participant, (entry = { uploaded: {}, vetted: [] }));
    return entry;
  };
  const tablesOf = (node: string): NodeTables => {
    let entry = out.tables.get(node);
    if (entry === undefined)
      out.tables.set(node, (entry = { peers: [], partyConfigs: [], runs: [], invitations: [] }));
    return entry;
  };
  let line = 0;
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  try {
    for await (const text of lines) {
      line++;
      if (text.trim() === '') continue;
      let record: ForkRecord;
      try {
        record = JSON.parse(text) as ForkRecord;
      } catch (error) {
        throw stateError(`the fork snapshot ${file} is damaged at line ${line}: ${(error as Error).message}`);
      }
      if (header === undefined) {
        if (record.kind !== 'header' || record.version !== FORK_SNAPSHOT_VERSION)
          throw stateError(
            `${file} is not a fork snapshot of version ${FORK_SNAPSHOT_VERSION} (line 1 is no header of it)`,
          );
        header = record;
        for (const node of record.nodes) participantOf.set(node.name, node.participantId);
        continue;
      }
      switch (record.kind) {
        case 'header':
          throw stateError(`the fork snapshot ${file} has a second header at line ${line}`);
        case 'dpm':
          readDpm(record.node, record.read, record.body, out, packagesOf, tablesOf);
          break;
        case 'ledger':
          readLedger(record.node, record.read, record.body, participantOf, out, packagesOf);
          break;
        case 'read-party': {
          out.readParties.add(record.party);
          // hosted where it was read, when no party list said so (a read-only login may not list parties)
          const participant = participantOf.get(record.node);
          if (
            participant !== undefined &&
            !out.decentralized.has(record.party) &&
            !out.hosting.has(record.party)
          )
            out.hosting.set(record.party, { [participant]: 'submission' });
          break;
        }
        case 'contract': {
          if (seen.has(record.contractId)) break;
          seen.add(record.contractId);
          const contract = copiedContract(record, catalog);
          if (contract === undefined)
            out.notCopied.set(record.templateId, (out.notCopied.get(record.templateId) ?? 0) + 1);
          else if (record.archived === true) out.archived.push(contract);
          else out.contracts.push(contract);
          break;
        }
        case 'token':
          if (record.read === 'rewards') out.rewardsDays += addRewards(record.body, out.rewards);
          if (record.read === 'account-rules') out.rulesContracts.push(...rulesContracts(record.body));
          if (record.read === 'bitcoin-deposits') {
            for (const { deposit, tip } of deposits(record.body)) {
              out.deposits.push(deposit);
              out.chainTip = Math.max(out.chainTip, tip);
            }
          }
          break;
        case 'unread':
          out.unread.push(`${record.service} ${record.read}, not read: ${record.reason}`);
          break;
      }
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw usageError(`the fork snapshot ${file} does not exist`);
    throw error;
  } finally {
    lines.close();
  }
  if (header === undefined) throw stateError(`the fork snapshot ${file} is empty`);
  if (header.nodes.length === 0) throw usageError('the forked target names no node');
  return { header, ...out };
}

/** the contract in the ledger's stored form, its argument decoded against the catalog; undefined: not run here */
function copiedContract(
  record: Extract<ForkRecord, { kind: 'contract' }>,
  catalog: Catalog,
): StoredContract | undefined {
  const definition = catalog.lookup(record.templateId);
  if (definition?.kind !== 'template') return undefined;
  let arg: unknown;
  try {
    arg = decode(definition.argType, record.createArgument);
  } catch (error) {
    if (error instanceof LfError) return undefined;
    throw error;
  }
  const at = record.createdAt === undefined ? Date.now() * 1000 : Date.parse(record.createdAt) * 1000;
  // a ledgerbook sandbox's blob carries the creation's exact time, offset and node: the copy's blob is then the same
  const tpl = packageIdForm(definition.pkg, definition.name);
  const origin = sandboxBlob(record.createdEventBlob, record.contractId, tpl);
  if (origin !== undefined) return origin;
  return {
    cid: record.contractId,
    tpl,
    arg,
    at: Number.isFinite(at) ? at : Date.now() * 1000,
    o: record.offset ?? 0,
    n: 0,
  };
}

/**
 * The contract as a sandbox's created-event blob records it (ledger/blob.ts), when the blob is one of this contract
 * and template: its argument in the ledger's own form and its creation's time, offset and node, so that the copy
 * hands out the very blob the network does.
 */
function sandboxBlob(blob: string | undefined, contractId: string, tpl: string): StoredContract | undefined {
  if (blob === undefined || readBlob(blob)?.cid !== contractId) return undefined;
  const stored = JSON.parse(Buffer.from(blob, 'base64').toString('utf8')) as Partial<StoredContract>;
  return stored.tpl === tpl &&
    stored.arg !== undefined &&
    typeof stored.at === 'number' &&
    typeof stored.o === 'number' &&
    typeof stored.n === 'number'
    ? { cid: contractId, tpl, arg: stored.arg, at: stored.at, o: stored.o, n: stored.n }
    : undefined;
}

type Wire = Record<string, unknown>;

function readDpm(
  node: string,
  read: string,
  body: unknown,
  out: Omit<SnapshotRead, 'header'>,
  packagesOf: (node: string) => { uploaded: Record<string, PackageEntry>; vetted: string[] },
  tablesOf: (node: string) => NodeTables,
): void {
  const wire = (body ?? {}) as Wire;
  switch (read) {
    case 'node-config': {
      const key = (wire['node'] as Wire | undefined)?.['public_key'];
      if (typeof key === 'string') out.publicKeys.set(node, key);
      break;
    }
    case 'network-config':
      tablesOf(node).peers = ((wire['peers'] as Peer[] | undefined) ?? []).map((p) => ({ ...p }));
      break;
    case 'decentralized-parties':
      for (const party of (wire['parties'] as Wire[] | undefined) ?? []) mergeParty(party, out.decentralized);
      break;
    case 'vetted-packages': {
      const entry = packagesOf(node);
      for (const p of (body as Wire[] | undefined) ?? []) {
        const id = String(p['package_id']);
        entry.uploaded[id] ??= {
          packageId: id,
          name: text(p['package_name']),
          version: text(p['package_version']),
          templates: [],
        };
        if (!entry.vetted.includes(id)) entry.vetted.push(id);
      }
      break;
    }
    case 'party-config':
      tablesOf(node).partyConfigs.push(wire as unknown as PartyConfigRead);
      break;
    case 'invitations':
      tablesOf(node).invitations = ((wire['invitations'] as PendingInvitation[] | undefined) ?? []).map((i) =>
        withoutNulls(i),
      );
      break;
    case 'workflows': {
      const runs = (wire['runs'] as Wire[] | undefined) ?? [];
      // a run in progress would be taken up again by the copy's node as if it were its own: it stays behind
      tablesOf(node).runs = runs.filter((r) => r['status'] !== 'inprogress').map((r) => runRow(r));
      const going = runs.filter((r) => r['status'] === 'inprogress').map((r) => text(r['instance_name']));
      if (going.length > 0)
        out.unread.push(`dpm:${node} workflow runs in progress on the network: ${going.join(', ')}`);
      break;
    }
  }
}

function readLedger(
  node: string,
  read: string,
  body: unknown,
  participantOf: Map<string, string>,
  out: Omit<SnapshotRead, 'header'>,
  packagesOf: (node: string) => { uploaded: Record<string, PackageEntry>; vetted: string[] },
): void {
  const wire = (body ?? {}) as Wire;
  const participant = participantOf.get(node) ?? node;
  switch (read) {
    case 'ledger-end':
      out.ledgerEnds.push(Number(wire['offset'] ?? 0));
      break;
    case 'packages': {
      const entry = packagesOf(node);
      for (const id of (wire['packageIds'] as string[] | undefined) ?? [])
        entry.uploaded[id] ??= { packageId: id, name: '', version: '', templates: [] };
      break;
    }
    case 'parties':
      for (const details of (wire['partyDetails'] as Wire[] | undefined) ?? []) {
        if (details['isLocal'] !== true || out.decentralized.has(String(details['party']))) continue;
        const party = String(details['party']);
        const hosting = out.hosting.get(party) ?? {};
        hosting[participant] = 'submission';
        out.hosting.set(party, hosting);
      }
      break;
  }
}

/** one node's view of a decentralized party, merged with the others' (each knows its own owner key) */
function mergeParty(wire: Wire, parties: Map<string, PartyRecord>): void {
  const partyId = String(wire['party_id']);
  const hosting = ((wire['participants'] as Wire[] | undefined) ?? []).map((p) => ({
    participantUid: String(p['participant_uid']),
    permission: (p['permission'] === 'unknown' ? 'confirmation' : p['permission']) as Permission,
    ownerKey: typeof p['owner_key'] === 'string' ? p['owner_key'] : undefined,
  }));
  const ownerKeys = new Set(((wire['owners'] as string[] | undefined) ?? []).map(String));
  // an owner's participant: the one that says so, else the one whose derived key it is (a sandbox's namespace keys)
  const owners: PartyOwner[] = [];
  for (const key of ownerKeys) {
    const holder =
      hosting.find((h) => h.ownerKey === key) ??
      hosting.find((h) => ownerKeyOf(h.participantUid, prefixOf(partyId)) === key);
    if (holder !== undefined) owners.push({ participantUid: holder.participantUid, ownerKey: key });
  }
  const contracts = ((wire['contracts'] as Wire[] | undefined) ?? []).map((c) => ({
    contractId: String(c['contract_id']),
    templateId: String(c['template_id']),
    packageId: String(c['package_id']),
    packageName: String(c['package_name']),
    packageVersion: String(c['package_version']),
    createdAt: String(c['created_at']),
    memberParties: [],
    operatorParty: '',
    onLedger: true,
  }));
  const known = parties.get(partyId);
  if (known === undefined) {
    parties.set(partyId, {
      partyId,
      threshold: Number(wire['threshold']),
      owners,
      participants: hosting.map(({ participantUid, permission }) => ({ participantUid, permission })),
      contracts,
      createdAt: Date.now(),
    });
    return;
  }
  for (const owner of owners)
    if (!known.owners.some((o) => o.ownerKey === owner.ownerKey)) known.owners.push(owner);
  for (const c of contracts)
    if (!known.contracts.some((k) => k.contractId === c.contractId)) known.contracts.push(c);
}

function runRow(wire: Wire): RunRow {
  const optional = (key: string): string | undefined => {
    const value = wire[key];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  return {
    instance_name: String(wire['instance_name']),
    kind: wire['kind'] as RunRow['kind'],
    role: wire['role'] as RunRow['role'],
    status: wire['status'] as RunRow['status'],
    current_step: text(wire['current_step']),
    step_index: Number(wire['step_index'] ?? 0),
    step_total: Number(wire['step_total'] ?? 1),
    config_json: text(wire['config_json']) || '{}',
    ...(optional('coordinator_pubkey') === undefined
      ? {}
      : { coordinator_pubkey: optional('coordinator_pubkey') }),
    ...(optional('coordinator_instance') === undefined
      ? {}
      : { coordinator_instance: optional('coordinator_instance') }),
    expected_peers: (wire['expected_peers'] as string[] | undefined) ?? [],
    completed_peers: (wire['completed_peers'] as string[] | undefined) ?? [],
    ...(optional('dec_party_id') === undefined ? {} : { dec_party_id: optional('dec_party_id') }),
    ...(optional('error') === undefined ? {} : { error: optional('error') }),
    dismissed: wire['dismissed'] === true,
    created_at: Number(wire['created_at'] ?? 0),
    updated_at: Number(wire['updated_at'] ?? 0),
  };
}

function withoutNulls<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)) as T;
}

/** one party's daily rewards as read, into the history; the number of days with transfers */
function addRewards(body: unknown, history: RewardsHistory): number {
  const read = body as { party?: unknown; days?: unknown } | undefined;
  if (typeof read?.party !== 'string' || !Array.isArray(read.days)) return 0;
  const days = (history[read.party] ??= {});
  let counted = 0;
  for (const day of read.days as Wire[]) {
    const created = Number(day['transferCreationCount'] ?? 0);
    const accepted = Number(day['acceptedTransferCount'] ?? 0);
    if (typeof day['date'] !== 'string' || (created === 0 && accepted === 0)) continue;
    days[day['date']] = { created, accepted };
    counted++;
  }
  return counted;
}

/** the deposits of a `bitcoin-deposits` read, in the chain's own form, each with the chain height it shows */
function deposits(body: unknown): Array<{ deposit: Deposit; tip: number }> {
  const list = ((body as Wire | undefined)?.['deposits'] as Wire[] | undefined) ?? [];
  return list.map((d) => {
    const block = typeof d['block'] === 'number' ? d['block'] : -1;
    const confirmations = Number(d['confirmations'] ?? 0);
    return {
      deposit: {
        txid: String(d['txid']),
        vout: Number(d['vout'] ?? 0),
        address: String(d['address']),
        amount: String(d['amount']),
        sentAtMs: 0,
        height: block,
        status: (d['status'] ?? 'pending') as DepositStatus,
        ...(typeof d['reason'] === 'string' ? { reason: d['reason'] } : {}),
        ...(typeof d['holdingCid'] === 'string' ? { holdingCid: d['holdingCid'] } : {}),
      },
      // a deposit in block b with c confirmations: the chain was at b + c - 1
      tip: block < 0 ? 0 : block + Math.max(confirmations, 1) - 1,
    };
  });
}

/**
 * The copy's chain: the deposits read, and one epoch that goes on from the height the network's chain had when it
 * was read, so that their confirmations carry on; an unconfirmed deposit goes into the next block.
 */
function chainState(read: Deposit[], tip: number, readAtMs: number): unknown {
  const at = Number.isFinite(readAtMs) ? readAtMs : Date.now();
  return {
    epochs: read.length === 0 ? [] : [{ startMs: at, startHeight: tip, intervalMs: 1000 }],
    deposits: read.map((d) => ({
      ...d,
      sentAtMs: at,
      height: d.height < 0 ? tip + 1 : d.height,
      ...(d.status === 'pending' ? {} : { mintedAtMs: at }),
    })),
    payouts: [],
  };
}

/**
 * The contracts archived before the fork, as one transaction at the fork's offset that creates and archives each:
 * the copy finds their events by contract id, as the network's participant does, while every read of the history
 * after the fork (which starts after that offset) never sees it.
 */
function prehistory(read: SnapshotRead, end: number): TxEntry {
  const nodes: TxEntry['nodes'] = [];
  for (const contract of read.archived) {
    const witnesses: string[] = [];
    const n = nodes.length;
    nodes.push({ n, k: 'c', cid: contract.cid, tpl: contract.tpl, arg: contract.arg, wit: witnesses });
    nodes.push({
      n: n + 1,
      k: 'e',
      cid: contract.cid,
      tpl: contract.tpl,
      ch: 'Archive',
      arg: {},
      cons: true,
      act: [],
      res: null,
      last: n + 1,
      wit: witnesses,
      sh: [],
    });
  }
  return {
    t: 'tx',
    o: end,
    u: `1220${'f'.repeat(64)}`,
    rt: Math.min(...read.archived.map((contract) => contract.at)),
    p: read.header.nodes[0]?.participantId ?? '',
    act: [],
    nodes,
  };
}

/** a wire string, or '' when the field is absent or not a string */
function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** the contract ids of the gateway's account rules as read (`da_rules`, `wa_rules`: wrapped-api.md §8) */
function rulesContracts(body: unknown): string[] {
  const wire = (body ?? {}) as Wire;
  return ['da_rules', 'wa_rules']
    .map((key) => (wire[key] as Wire | undefined)?.['contract_id'])
    .filter((id): id is string => typeof id === 'string');
}

/**
 * Reads the network a target names, for `sandbox up --fork`, with reads only — GETs, and the read-only POST of the
 * rewards query; the active contracts come over the participant's read stream — through the product's clients
 * (their authentication, retries and URL rules, as in any run). Each answer is written as one line of the fork
 * snapshot (`ForkRecord`, @ledgerbook/sandbox) as soon as it arrives, and each contract as it streams in, so that a
 * large network is read in bounded memory; what the target's credentials may not read is recorded as unread and
 * named. A party configuration is read as the DPM shows it, which tells whether a secret is set, never the secret.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { ForkRecord } from '../sandbox-package.js';
import type { Clients } from '../../clients/clients.js';
import { ServiceError } from '../../errors.js';
import type { Target } from '../../playbook/target.js';
import { TOKEN_TEMPLATES } from '../../clients/token-wire.js';

export interface ReadNetworkOptions {
  target: Target;
  clients: Clients;
  /** the snapshot file written */
  file: string;
  /** days of rewards history read, up to today (UTC) */
  rewardsDays: number;
  /** progress lines (stderr) */
  progress(line: string): void;
  now?: Date;
}

export interface NetworkRead {
  contracts: number;
  unread: number;
}

const PROGRESS_EVERY = 1000;
const BLOCK_CHARS = 64 * 1024;

export async function readNetwork(options: ReadNetworkOptions): Promise<NetworkRead> {
  const { target, clients } = options;
  const out = new SnapshotWriter(options.file);
  const counts: NetworkRead = { contracts: 0, unread: 0 };
  try {
    const nodes = Object.entries(target.nodes ?? {});
    const named = Object.fromEntries(
      Object.entries(target.parties ?? {}).map(([name, p]) => [name, typeof p === 'string' ? p : p.party]),
    );
    out.write({
      kind: 'header',
      version: 1,
      source: { name: target.name, network: target.network },
      readAt: (options.now ?? new Date()).toISOString(),
      nodes: nodes.map(([name, n]) => ({
        name,
        participantId: n.participantId,
        ...(n.party ? { party: n.party } : {}),
      })),
      ...(target.instrument ? { instrument: { ...target.instrument } } : {}),
      parties: named,
    });
    /** a read the target may not make is recorded and named; an unreachable node stops the fork */
    const attempt = async <T>(
      service: string,
      read: string,
      call: () => Promise<T>,
    ): Promise<T | undefined> => {
      try {
        return await call();
      } catch (error) {
        if (!(error instanceof ServiceError) || error.retryability !== 'permanent') throw error;
        counts.unread++;
        out.write({ kind: 'unread', service, read, reason: error.message });
        return undefined;
      }
    };
    const readParties = new Set<string>();
    /** the deposit accounts read (their ids): their addresses' Bitcoin deposits are read after the contracts */
    const depositAccounts = new Map<string, { node: string; party: string }>();
    const accountTemplate = TOKEN_TEMPLATES.depositAccount.slice(TOKEN_TEMPLATES.depositAccount.indexOf(':'));
    for (const [name, node] of nodes) {
      const dpm = clients.dpm(name);
      const ledger = clients.ledger(name);
      const dpmRead = async (
        read: Extract<ForkRecord, { kind: 'dpm' }>['read'],
        call: () => Promise<unknown>,
      ) => {
        const body = await attempt(`dpm:${name}`, read, call);
        if (body !== undefined) out.write({ kind: 'dpm', node: name, read, body });
        return body;
      };
      await dpmRead('node-config', () => dpm.nodeConfig());
      await dpmRead('network-config', () => dpm.networkConfig());
      const parties = (await dpmRead('decentralized-parties', () => dpm.decentralizedParties())) as
        | { parties: Array<{ party_id: string; participants: Array<{ participant_uid: string }> }> }
        | undefined;
      await dpmRead('vetted-packages', () => dpm.vettedPackages());
      const hosted = (parties?.parties ?? []).filter((p) =>
        p.participants.some((h) => h.participant_uid === node.participantId),
      );
      for (const party of hosted) {
        const config = await attempt(`dpm:${name}`, `party-config ${party.party_id}`, () =>
          dpm.partyConfig(party.party_id),
        );
        if (config !== undefined) out.write({ kind: 'dpm', node: name, read: 'party-config', body: config });
      }
      await dpmRead('invitations', () => dpm.invitations());
      await dpmRead('workflows', () => dpm.workflows());

      const end = await ledger.ledgerEnd();
      out.write({ kind: 'ledger', node: name, read: 'ledger-end', body: { offset: end } });
      const packages = await attempt(`ledger:${name}`, 'packages', () => ledger.packages());
      if (packages !== undefined)
        out.write({ kind: 'ledger', node: name, read: 'packages', body: { packageIds: packages } });
      let pageToken: string | undefined;
      do {
        const page = await attempt(`ledger:${name}`, 'parties', () =>
          ledger.parties(pageToken === undefined ? {} : { pageToken }),
        );
        if (page === undefined) break;
        out.write({ kind: 'ledger', node: name, read: 'parties', body: page });
        pageToken = page.nextPageToken || undefined;
      } while (pageToken !== undefined);

      // the parties this node reads for the target: its own party, the named parties it hosts, the
      // decentralized parties it hosts (each party once, on the first node that may read it)
      const wanted = [
        ...(node.party ? [node.party] : []),
        ...Object.values(target.parties ?? {})
          .filter((p) => typeof p !== 'string' && p.node === name)
          .map((p) => (p as { party: string }).party),
        ...hosted.map((p) => p.party_id),
      ].filter((p) => !readParties.has(p));
      for (const party of new Set(wanted)) {
        let contracts = 0;
        const read = await attempt(`ledger:${name}`, `active contracts of ${party}`, () =>
          ledger.activeContracts(
            // every contract, with the blob a disclosure of it carries
            {
              parties: [party],
              activeAtOffset: end,
              filters: [{ wildcard: true, includeCreatedEventBlob: true }],
            },
            {
              onContract: (active) => {
                const event = active.createdEvent;
                if (event.templateId.endsWith(accountTemplate)) {
                  const id = (event.createArgument as { id?: unknown } | undefined)?.id;
                  depositAccounts.set(typeof id === 'string' ? id : event.contractId, { node: name, party });
                }
                contracts++;
                counts.contracts++;
                if (counts.contracts % PROGRESS_EVERY === 0)
                  options.progress(`${counts.contracts} contracts read…`);
                out.write(contractRecord(name, event));
              },
            },
          ),
        );
        if (read === undefined) continue;
        readParties.add(party);
        out.write({ kind: 'read-party', node: name, party });
        options.progress(`${name}: ${contracts} contracts of ${party}`);
      }
    }
    await readToken(options, out, attempt, [...readParties], depositAccounts);
    out.close();
    return counts;
  } catch (error) {
    out.close();
    throw error;
  }
}

async function readToken(
  options: ReadNetworkOptions,
  out: SnapshotWriter,
  attempt: <T>(service: string, read: string, call: () => Promise<T>) => Promise<T | undefined>,
  parties: string[],
  depositAccounts: ReadonlyMap<string, { node: string; party: string }>,
): Promise<void> {
  const { target, clients } = options;
  const services = target.services ?? {};
  // the deposits to the target's deposit addresses, from the Bitcoin service the target names (a sandbox's chain)
  if (services.gateway !== undefined && services.bitcoin !== undefined) {
    for (const [account, owner] of depositAccounts) {
      const address = await attempt('gateway', `deposit address of ${account}`, () =>
        clients.gateway().bitcoinAddress(account),
      );
      if (address === undefined) continue;
      const deposits = await attempt('bitcoin', `deposits to ${address.bitcoin_address}`, () =>
        clients.bitcoin().depositsTo(address.bitcoin_address),
      );
      if (deposits === undefined) continue;
      out.write({
        kind: 'token',
        read: 'bitcoin-deposits',
        body: { address: address.bitcoin_address, deposits },
      });
      // a mint's holding spent since is no longer active, but the ledger still knows it (how a mint is found again)
      for (const deposit of deposits) {
        if (deposit.holdingCid === undefined) continue;
        const events = await attempt(`ledger:${owner.node}`, `events of ${deposit.holdingCid}`, () =>
          clients.ledger(owner.node).eventsByContractId(deposit.holdingCid as string, [owner.party]),
        );
        const created = events?.created?.createdEvent;
        if (created === undefined || events?.archived === undefined || events.archived === null) continue;
        out.write({ ...contractRecord(owner.node, created), archived: true });
      }
    }
  }
  if (target.instrument !== undefined && services.registry !== undefined) {
    const instrument = await attempt('registry', 'instrument', () =>
      clients.registry().instrument(target.instrument?.id ?? ''),
    );
    if (instrument !== undefined) out.write({ kind: 'token', read: 'instrument', body: instrument });
  }
  if (services.gateway !== undefined) {
    const rules = await attempt('gateway', 'account contract rules', () =>
      clients.gateway().accountContractRules(),
    );
    if (rules !== undefined) out.write({ kind: 'token', read: 'account-rules', body: rules });
  }
  if (services.rewards !== undefined && options.rewardsDays > 0) {
    const today = options.now ?? new Date();
    const start = new Date(today.getTime() - (options.rewardsDays - 1) * 86_400_000);
    // one query per party: the service sums the parties it is asked for, and the copy counts per sender
    for (const party of parties) {
      const rewards = await attempt('rewards', `daily rewards of ${party}`, () =>
        clients.rewards().dailyRewards({
          parties: [party],
          startDate: start.toISOString().slice(0, 10),
          endDate: today.toISOString().slice(0, 10),
        }),
      );
      if (rewards !== undefined)
        out.write({ kind: 'token', read: 'rewards', body: { party, days: rewards.days } });
    }
  }
}

/** A contract as the snapshot records it, from a created event as the participant gave it. */
function contractRecord(
  node: string,
  event: {
    contractId: string;
    templateId: string;
    createArgument?: unknown;
    createdEventBlob?: string | undefined;
    createdAt?: string | undefined;
    offset?: number | undefined;
  },
): Extract<ForkRecord, { kind: 'contract' }> {
  return {
    kind: 'contract',
    node,
    contractId: event.contractId,
    templateId: event.templateId,
    createArgument: event.createArgument,
    ...(event.createdEventBlob ? { createdEventBlob: event.createdEventBlob } : {}),
    ...(event.createdAt ? { createdAt: event.createdAt } : {}),
    ...(typeof event.offset === 'number' ? { offset: event.offset } : {}),
  };
}

/**
 * JSON lines to a file (mode 0600), written synchronously in blocks of 64 KiB: a contract stream never waits on the
 * disk with its records piling up in memory; memory holds one block at most.
 */
class SnapshotWriter {
  private readonly fd: number;
  private block: string[] = [];
  private size = 0;
  private closed = false;

  constructor(file: string) {
    this.fd = openSync(file, 'w', 0o600);
  }

  write(record: ForkRecord): void {
    const line = `${JSON.stringify(record)}\n`;
    this.block.push(line);
    this.size += line.length;
    if (this.size >= BLOCK_CHARS) this.flush();
  }

  private flush(): void {
    if (this.block.length === 0) return;
    writeSync(this.fd, this.block.join(''));
    this.block = [];
    this.size = 0;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.flush();
    } finally {
      closeSync(this.fd);
    }
  }
}

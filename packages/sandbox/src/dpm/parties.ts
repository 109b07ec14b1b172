/**
 * GET /decentralized-parties and its cache (dpm-api.md §4): live reads come from the synchronizer and carry only
 * this node's owner key; a live read is written to the cache in the background, after which the other members'
 * owner keys are resolved over the mesh (topology as the fallback). Kick, add-party, change-threshold and the
 * contracts quorum read the cache, not the live state.
 */
import type { PartyRecord } from '../canton.js';
import { sleep, nowSeconds } from '../time.js';
import { prefixOf } from './keys.js';
import type { DpmNode } from './node.js';
import type { CachedParty, ContractInfo, DecentralizedParty } from './types.js';

export const CACHE_STALE_SECONDS = 60;

/** what the synchronizer says now, as this participant sees it */
export function liveParties(node: DpmNode, prefix: string): DecentralizedParty[] {
  return node.env.canton
    .partiesOf(node.participantId)
    .filter((p) => prefix === '' || prefixOf(p.partyId) === prefix)
    .map((p) => toWire(node, p));
}

function toWire(node: DpmNode, party: PartyRecord): DecentralizedParty {
  const mine = party.owners.find((o) => o.participantUid === node.participantId)?.ownerKey;
  const wire: DecentralizedParty = {
    party_id: party.partyId,
    threshold: party.threshold,
    owners: party.owners.map((o) => o.ownerKey),
    participants: party.participants.map((h) => ({
      participant_uid: h.participantUid,
      permission: h.permission,
      ...(h.participantUid === node.participantId && mine !== undefined ? { owner_key: mine } : {}),
    })),
  };
  if (mine !== undefined) wire.my_owner_key = mine;
  const contracts = partyContracts(node, party);
  if (contracts.length > 0) wire.contracts = contracts;
  return wire;
}

/**
 * The party's contracts: those the contracts workflow recorded, where a template the ledger runs is listed as the
 * ledger has its contracts now (signed by the party, whatever their current ids).
 */
function partyContracts(node: DpmNode, party: PartyRecord): ContractInfo[] {
  const ledger = node.env.participant.ledger;
  const out: ContractInfo[] = [];
  const listed = new Set<string>();
  for (const c of party.contracts) {
    const info = {
      template_id: c.templateId,
      package_id: c.packageId,
      package_name: c.packageName,
      package_version: c.packageVersion,
    };
    if (c.onLedger !== true) {
      out.push({ contract_id: c.contractId, ...info, created_at: c.createdAt });
      continue;
    }
    const template = ledger.catalog.template(`${c.packageId}:${c.templateId}`);
    if (template === undefined || listed.has(c.templateId)) continue;
    listed.add(c.templateId);
    for (const contract of ledger.contractsOfTemplate(template)) {
      if (!contract.template.signatories(contract.arg).includes(party.partyId)) continue;
      out.push({
        contract_id: contract.cid,
        ...info,
        created_at: new Date(Math.floor(contract.createdAt / 1000)).toISOString(),
      });
    }
  }
  return out;
}

/** the cached rows for a prefix ('' = all), or undefined when nothing is cached for it */
export function cachedParties(node: DpmNode, prefix: string): CachedParty[] | undefined {
  const rows = node.state.party_cache.filter((r) => prefix === '' || prefixOf(r.party.party_id) === prefix);
  return rows.length === 0 ? undefined : rows;
}

export function cachedParty(node: DpmNode, partyId: string): DecentralizedParty | undefined {
  return node.state.party_cache.find((r) => r.party.party_id === partyId)?.party;
}

/** replaces the cached rows of a prefix by a fresh read */
function storeToCache(node: DpmNode, prefix: string, parties: DecentralizedParty[]): void {
  const now = nowSeconds();
  node.state.party_cache = node.state.party_cache.filter(
    (r) => !(prefix === '' || prefixOf(r.party.party_id) === prefix),
  );
  for (const party of parties)
    node.state.party_cache.push({ party: structuredClone(party), updated_at: now });
  node.save();
}

/** fills the other members' owner keys of cached parties: ask each member over the mesh, else read topology */
async function resolveOwnerKeys(node: DpmNode, partyIds: string[], signal: AbortSignal): Promise<void> {
  await sleep(node.timings.ownerKeysMs, signal);
  for (const partyId of partyIds) {
    const cached = node.state.party_cache.find((r) => r.party.party_id === partyId);
    if (cached === undefined) continue;
    for (const participant of cached.party.participants) {
      if (participant.owner_key !== undefined) continue;
      let key: string | undefined;
      if (node.isConfiguredPeer(participant.participant_uid)) {
        try {
          const reply = await node.send(participant.participant_uid, { type: 'owner-key', partyId });
          if (reply.type === 'owner-key') key = reply.ownerKey;
        } catch (error) {
          node.env.log(
            `${node.name}: RequestOwnerKeys to ${participant.participant_uid} failed: ${(error as Error).message}`,
          );
        }
      }
      key ??= node.env.canton
        .party(partyId)
        ?.owners.find((o) => o.participantUid === participant.participant_uid)?.ownerKey;
      if (key !== undefined) participant.owner_key = key;
    }
  }
  node.save();
}

/** a live read stored to the cache and its owner keys resolved, in the background (deduplicated per prefix) */
export function refreshInBackground(node: DpmNode, prefix: string, parties: DecentralizedParty[]): boolean {
  if (node.refreshing.has(prefix)) return false;
  node.refreshing.add(prefix);
  node.spawn(`party cache refresh (${prefix || 'all'})`, async (signal) => {
    try {
      await sleep(node.timings.cacheWriteMs, signal);
      storeToCache(node, prefix, parties);
      await resolveOwnerKeys(
        node,
        parties.map((p) => p.party_id),
        signal,
      );
    } finally {
      node.refreshing.delete(prefix);
    }
  });
  return true;
}

/** the automatic refreshes: 5 s after boot, and on the coordinator after Onboarding / Contracts complete */
export function refreshPartyCache(node: DpmNode, prefix: string): void {
  refreshInBackground(node, prefix, liveParties(node, prefix));
}

/**
 * What a fork's first start does once its ledger runs (seed.ts wrote the rest): the simulated world is made to
 * agree with what was read — a world contract a read party sees that the network no longer has is archived (the
 * world's genesis is deterministic, so on a fork of a ledgerbook sandbox the world contracts it has are the very
 * contracts copied) — and the copy's own logins get their rights: each node's operator, CI and admin users act as
 * the parties hosted on their participant, and every party configuration's ledger user acts and reads as its member
 * and decentralized party, as the DPM's grant-rights gives them (dpm-api.md §3).
 */
import type { Right } from '../ledger/entries.js';
import type { Ledger } from '../ledger/ledger.js';
import { stakeholders } from '../ledger/model.js';
import type { World, WorldNode } from '../token/world.js';
import { RULES, adminOf, genesisCid } from '../token/world.js';
import type { ForkSeed } from './seed.js';

/** the genesis transaction creates fewer contracts than this */
const GENESIS_SIZE = 64;

export async function finishFork(
  ledger: Ledger,
  world: World,
  nodes: readonly WorldNode[],
  seed: ForkSeed,
): Promise<number> {
  const archived = await archiveUnseen(ledger, world, nodes[0] as WorldNode, seed);
  grantRights(ledger, world, nodes, seed);
  compareRules(ledger, seed);
  if (world.adopted) reportInstrument(ledger, world, seed);
  return archived;
}

/**
 * A world that adopted the network's instrument: its admin's rules contracts are the network's where they were
 * copied, the copy's own (created by its genesis) where not, and the fork report says which.
 */
function reportInstrument(ledger: Ledger, world: World, seed: ForkSeed): void {
  const own: string[] = [];
  let copied = 0;
  for (const template of RULES) {
    for (const c of ledger.contractsOfTemplate(template)) {
      if (adminOf(c.arg) !== world.admin) continue;
      if (seed.copiedContracts.has(c.cid)) copied++;
      else own.push(template.name.entity);
    }
  }
  seed.summary.copied[`rules contracts of the instrument ${world.instrument.id} (the network's)`] = copied;
  seed.summary.simulated.push(
    `the instrument ${world.instrument.id} of ${world.instrument.admin}: the copy's registry and gateway serve the network's admin` +
      (own.length > 0 ? `, with the copy's own ${own.join(', ')}` : ''),
  );
}

/**
 * The gateway's rules contracts the network answered with are the copy's only when its world is the network's (a
 * fork of a ledgerbook sandbox); otherwise the copy serves its own, and says so.
 */
function compareRules(ledger: Ledger, seed: ForkSeed): void {
  if (seed.rulesContracts.length === 0) return;
  const same = seed.rulesContracts.filter((cid) => ledger.active(cid) !== undefined).length;
  seed.summary.copied['gateway rules contracts (the same ids)'] = same;
  if (same < seed.rulesContracts.length)
    seed.summary.simulated.push(
      `the gateway's account rules: the copy's own, ${seed.rulesContracts.length - same} of the network's ${seed.rulesContracts.length} under other ids`,
    );
}

async function archiveUnseen(
  ledger: Ledger,
  world: World,
  first: WorldNode,
  seed: ForkSeed,
): Promise<number> {
  const gone = [];
  for (let n = 0; n < GENESIS_SIZE; n++) {
    const contract = ledger.active(genesisCid(world, n));
    if (contract === undefined || seed.copiedContracts.has(contract.cid)) continue;
    if (stakeholders(contract).some((p) => seed.readParties.has(p))) gone.push(contract);
  }
  if (gone.length === 0) return 0;
  await ledger.submit({
    participant: first.participantId,
    userId: 'sandbox-fork',
    actAs: [...new Set(gone.flatMap((c) => c.template.signatories(c.arg)))],
    commandId: 'sandbox-fork-reconcile',
    commands: gone.map((c) => ({
      kind: 'exercise',
      target: c.template,
      cid: c.cid,
      choice: 'Archive',
      arg: {},
    })),
    internal: true,
  });
  return gone.length;
}

function grantRights(ledger: Ledger, world: World, nodes: readonly WorldNode[], seed: ForkSeed): void {
  const infrastructure = new Set([world.admin, world.operator, world.dso, world.otherAdmin, world.faucet]);
  for (const node of nodes) {
    const hosted = ledger
      .allParties()
      .filter((p) => !infrastructure.has(p) && ledger.hosting(p)[node.participantId] === 'submission');
    const actAs = hosted.map((party): Right => ({ kind: 'CanActAs', party }));
    for (const user of [node.operatorUser, node.ciUser, node.adminUser])
      if (user !== undefined) addRights(ledger, node.participantId, user, actAs);
    for (const config of seed.tables.get(node.name)?.partyConfigs ?? []) {
      if (!config.user_id) continue;
      const parties = [config.dec_party_id, config.member_party_id].filter((p): p is string => !!p);
      addRights(
        ledger,
        node.participantId,
        config.user_id,
        parties.flatMap((party): Right[] => [
          { kind: 'CanActAs', party },
          { kind: 'CanReadAs', party },
        ]),
      );
    }
  }
}

function addRights(ledger: Ledger, participant: string, id: string, rights: Right[]): void {
  const user = ledger.user(participant, id) ?? {
    id,
    isDeactivated: false,
    annotations: {},
    rights: [],
    resourceVersion: 0,
  };
  const missing = rights.filter((r) => !user.rights.some((x) => x.kind === r.kind && x.party === r.party));
  if (missing.length > 0) ledger.putUser(participant, { ...user, rights: [...user.rights, ...missing] });
}

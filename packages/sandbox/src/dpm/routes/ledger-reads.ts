/**
 * The contracts, services and proxies reads (dpm-api.md §12): what the party has on the ledger, read with the
 * party's credentials from this node's participant (`?party_id`), and the two network-wide reads. A read the
 * participant refuses (no credentials: no token; a user without the rights) answers 500 `Failed to fetch …: <the
 * participant's error>`. Templates the sandbox does not run (vaults, provider and registrar services, registrar
 * requests, provider configurations) answer empty lists.
 */
import { type Reply, json, jsonError } from '../../http/reply.js';
import { errors } from '../../ledger/errors.js';
import type { Contract } from '../../ledger/model.js';
import { findImplementation } from '../../ledger/tx.js';
import { AmuletRules } from '../../token/amulet.js';
import { micros } from '../../token/types.js';
import type { DpmNode } from '../node.js';
import { ParticipantError, partyActor, readAsParty } from '../party-ledger.js';
import {
  credentialOffers,
  credentials,
  holdings,
  instruments,
  transferFactories,
  transferPreapprovals,
  userServices,
} from '../governance/reads.js';
import { route, type DpmRequest, type DpmRoute } from './route.js';

type Read = (node: DpmNode, parties: string[], partyId: string, request: DpmRequest) => unknown;

/** a `?party_id` read (the dispatcher answers 400 for a bad query): 500 `<failure>: …` when the participant refuses */
function partyRead(template: string, failure: string, read: Read): DpmRoute {
  return route({
    method: 'GET',
    template,
    access: 'auth',
    handle: async (request) => {
      const partyId = request.q.party_id as string;
      const { node } = request;
      const outcome = await partyActor(node, partyId);
      try {
        return json(
          200,
          await readAsParty(node, outcome, (parties) => read(node, parties, partyId, request)),
        );
      } catch (error) {
        if (error instanceof ParticipantError) return jsonError(500, `${failure}: ${error.message}`);
        throw error;
      }
    },
  });
}

function ledgerOf(node: DpmNode) {
  return node.env.participant.ledger;
}

/** GET /contracts/query: the party's contracts of a template (or interface), with their blobs */
function queryContracts(node: DpmNode, parties: string[], request: DpmRequest): unknown {
  const q = request.q as {
    package_id: string;
    module_name: string;
    entity_name: string;
    interface?: boolean;
    active_only?: boolean;
  };
  const ledger = ledgerOf(node);
  const identifier = `${q.package_id}:${q.module_name}:${q.entity_name}`;
  const def = ledger.catalog.lookup(identifier);
  if (def === undefined) {
    if (q.package_id.startsWith('#')) {
      const name = q.package_id.slice(1);
      const known = node.env.canton.uploadedPackages(node.participantId).some((p) => p.name === name);
      if (!known) throw errors.packageNamesNotFound([name]);
    }
    return { contracts: [] };
  }
  if ((def.kind === 'interface') !== (q.interface === true)) {
    throw errors.invalidArgument(
      `${identifier} is ${def.kind === 'interface' ? 'an interface' : 'a template'}: query it with interface=${String(def.kind === 'interface')}`,
    );
  }
  const now = Date.now() * 1000;
  const matches = (c: Contract): boolean =>
    def.kind === 'interface' ? findImplementation(c, def) !== undefined : c.template === def;
  const expired = (c: Contract): boolean => {
    const deadline = (c.arg as { executeBefore?: unknown }).executeBefore;
    return typeof deadline === 'string' && micros(deadline) <= now;
  };
  const out: Array<{ contract_id: string; blob: string }> = [];
  const seen = new Set<string>();
  for (const party of parties) {
    for (const c of ledger.contractsOf(party)) {
      if (seen.has(c.cid) || !matches(c) || (q.active_only === true && expired(c))) continue;
      seen.add(c.cid);
      out.push({ contract_id: c.cid, blob: ledger.blob(c) });
    }
  }
  return { contracts: out };
}

/** the operator party of a node: `operator<N>::<its namespace>` */
function operatorParty(node: DpmNode): string {
  return `operator${node.identity.index}::${node.participantId.split('::')[1] ?? ''}`;
}

export const ledgerReadRoutes: DpmRoute[] = [
  route({
    method: 'GET',
    template: '/external-parties',
    access: 'auth',
    // external (wallet-key) parties come from the tenant API, which the sandbox does not simulate: none
    handle: () => json(200, { parties: [] }),
  }),
  partyRead('/vaults', 'Failed to fetch vaults', () => ({ vaults: [] })),
  partyRead('/services/provider', 'Failed to fetch provider services', () => ({ services: [] })),
  partyRead('/services/user', 'Failed to fetch user services', (node, parties, partyId) => ({
    services: userServices(ledgerOf(node), parties, partyId),
  })),
  partyRead('/services/registrar', 'Failed to fetch registrar services', () => ({ services: [] })),
  partyRead('/credential-offers', 'Failed to fetch credential offers', (node, parties, partyId) => ({
    credential_offers: credentialOffers(ledgerOf(node), parties, partyId),
  })),
  partyRead('/credentials', 'Failed to fetch credentials', (node, parties, partyId) => ({
    credentials: credentials(ledgerOf(node), parties, partyId),
  })),
  partyRead('/registrar-service-requests', 'Failed to fetch registrar service requests', () => ({
    registrar_service_requests: [],
  })),
  partyRead('/provider-configurations', 'Failed to fetch provider configurations', () => ({
    provider_configurations: [],
  })),
  partyRead('/instruments', 'Failed to fetch instruments', (node, parties) => ({
    instruments: instruments(ledgerOf(node), parties),
  })),
  partyRead('/transfer-factories', 'Failed to fetch transfer factories', (node, parties) => ({
    transfer_factories: transferFactories(ledgerOf(node), parties),
  })),
  partyRead('/transfer-preapprovals', 'Failed to fetch transfer preapprovals', (node, parties, partyId) =>
    transferPreapprovals(ledgerOf(node), parties, partyId),
  ),
  partyRead('/holdings', 'Failed to fetch holdings', (node, parties, partyId) => ({
    holdings: holdings(ledgerOf(node), parties, partyId),
  })),
  partyRead('/contracts/query', 'Failed to query contracts', (node, parties, _partyId, request) =>
    queryContracts(node, parties, request),
  ),
  route({
    method: 'GET',
    template: '/coupon-reassignment-delegation',
    access: 'auth',
    handle: async (request): Promise<Reply> => {
      const partyId = request.q.party_id as string;
      const outcome = await partyActor(request.node, partyId);
      if (outcome.kind === 'not-configured') return jsonError(401, 'No credentials configured for party');
      if (outcome.kind === 'token-failed')
        return jsonError(500, `Failed to fetch auth token for party: ${outcome.error}`);
      try {
        // the rewards plugin's delegations are not simulated: the party has none
        await readAsParty(request.node, outcome, () => undefined);
      } catch (error) {
        if (error instanceof ParticipantError)
          return jsonError(503, `cannot read this party's current delegations: ${error.message}`);
        throw error;
      }
      return json(200, { delegations: [] });
    },
  }),
  route({
    method: 'GET',
    template: '/network-info',
    access: 'auth',
    handle: ({ node }) => {
      const ledger = ledgerOf(node);
      const rules = [...ledger.contractsOfTemplate(AmuletRules)][0];
      if (rules === undefined) return jsonError(502, 'Failed to parse DSO response: no AmuletRules contract');
      return json(200, {
        dso_party_id: node.env.world.dso,
        amulet_rules_cid: rules.cid,
        amulet_rules_blob: ledger.blob(rules),
      });
    },
  }),
  route({
    method: 'GET',
    template: '/operator-info',
    access: 'auth',
    handle: ({ node }) => json(200, { party_id: operatorParty(node) }),
  }),
];

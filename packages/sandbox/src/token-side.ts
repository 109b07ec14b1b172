/**
 * The token half of the sandbox: the shared ledger with the token's packages on every participant, the world,
 * the Bitcoin chain and its attestors, the capacity model, and the token services' listeners (registry,
 * gateway, rewards, faucet, bitcoin), each a separate host as the real services are.
 */
import { Attestors } from './bitcoin/attestors.js';
import { bitcoinRoutes } from './bitcoin/api.js';
import { bitcoinNetworkOf } from './bitcoin/address.js';
import { BitcoinChain, CHAIN_NS } from './bitcoin/chain.js';
import { Capacity, type CapacitySettings } from './capacity.js';
import { type Synchronizer, sha256 } from './canton.js';
import { type FaultBook, SERVICES, type ServiceName } from './faults.js';
import { Listener, type RequestLog, nodeHandler } from './http/listener.js';
import { type Reply, json, jsonError } from './http/reply.js';
import type { ApiProfile, Encoder } from './ledger/encode.js';
import { Ledger } from './ledger/ledger.js';
import type { Catalog } from './ledger/model.js';
import type { ProfileName } from './profile.js';
import { TOKEN_PROFILES, scaleTimings } from './profile.js';
import { dispatchService, serviceRouter, type ServiceRoute } from './service/route.js';
import { tokenCatalog } from './token/catalog.js';
import { addGovernance } from './governance/catalog.js';
import { GOVERNANCE_BUILTIN_PACKAGES } from './governance/packages.js';
import { platformPackages } from './platform-packages.js';
import { faucetRoutes } from './token/faucet-api.js';
import { gatewayRoutes } from './token/gateway-api.js';
import { TOKEN_PACKAGES } from './token/packages.js';
import { registryRoutes } from './token/registry-api.js';
import {
  REWARDS_HISTORY_FILE,
  type RewardsFields,
  type RewardsHistory,
  rewardsRoutes,
} from './token/rewards-api.js';
import { readJson } from './store.js';
import { join } from 'node:path';
import { type World, type WorldNode, describeWorld, ensureWorld } from './token/world.js';
import { adoptedInstrument } from './token/world-instrument.js';

export interface TokenSideOptions {
  stateDir: string;
  canton: Synchronizer;
  nodes: WorldNode[];
  faults: FaultBook;
  requests: RequestLog;
  host: string;
  /** 0: free ports; otherwise the first service's port (the others follow in SERVICES order) */
  firstPort: number;
  network: 'devnet' | 'testnet' | 'mainnet';
  profile: ProfileName;
  /** every duration of the profile multiplied by this factor */
  timeScale: number;
  apiProfile: ApiProfile;
  capacity?: Partial<CapacitySettings>;
  rewardsFields?: RewardsFields;
  /** Canton's `max-deduplication-duration`, seconds */
  maxDeduplicationDuration: number;
  maxBodyBytes: number;
  /** a network's own instrument for the world (a fork's): adopted when it is not the sandbox's, and kept */
  instrument?: { admin: string; id: string };
  log(line: string): void;
  onError(error: unknown): void;
}

export interface TokenSide {
  nodes: WorldNode[];
  ledger: Ledger;
  world: World;
  chain: BitcoinChain;
  attestors: Attestors;
  capacity: Capacity;
  encoder: Encoder;
  services: Record<ServiceName, Listener>;
  catchUp(): Promise<void>;
  close(): Promise<void>;
}

export async function startTokenSide(options: TokenSideOptions): Promise<TokenSide> {
  const { canton, nodes, faults, network } = options;
  const timings = scaleTimings(TOKEN_PROFILES[options.profile], options.timeScale);
  for (const [i, node] of nodes.entries()) {
    canton.installPackages(node.participantId, [
      ...platformPackages(i),
      ...TOKEN_PACKAGES,
      ...GOVERNANCE_BUILTIN_PACKAGES,
    ]);
  }
  const catalog = sandboxCatalog();
  const ledger = new Ledger({
    stateDir: options.stateDir,
    catalog,
    synchronizerId: `global-domain::1220${sha256(`ledgerbook-sandbox/synchronizer/${network}`)}`,
    topology: {
      decentralizedHosting: (party) => {
        const record = canton.party(party);
        return record === undefined
          ? undefined
          : Object.fromEntries(record.participants.map((p) => [p.participantUid, p.permission]));
      },
      decentralizedParties: () => canton.allParties().map((p) => p.partyId),
    },
    maxDeduplicationMicros: Math.round(options.maxDeduplicationDuration * 1_000_000),
  });
  const chain = new BitcoinChain((note) => ledger.note(CHAIN_NS, note));
  ledger.registerExtension(CHAIN_NS, chain);
  ledger.open();
  const closeLedger = (): void => ledger.close();
  try {
    const world = describeWorld(
      nodes,
      adoptedInstrument(options.stateDir, ledger, nodes, options.instrument),
    );
    await ensureWorld(ledger, nodes, world);
    chain.start(timings.blockIntervalMs);
    const first = nodes[0] as WorldNode;
    const attestors = new Attestors(
      ledger,
      chain,
      world,
      faults,
      {
        blockIntervalMs: timings.blockIntervalMs,
        processingMs: timings.attestorProcessingMs,
        burnDelayMs: timings.burnDelayMs,
      },
      first.participantId,
      bitcoinNetworkOf(network),
      (line) => options.log(line),
    );
    await attestors.catchUp();
    const capacity = new Capacity({
      latencyMs: timings.submitLatencyMs,
      limit: timings.transferLimit,
      windowMs: timings.transferWindowMs,
      ...options.capacity,
    });
    const encoder: Encoder = { catalog, synchronizerId: ledger.synchronizerId, profile: options.apiProfile };
    const catchUp = (): Promise<void> => attestors.catchUp();
    // wrapped-api.md §7.6: the live service's names in every profile (the older document's are opt-in)
    const rewardsFields = options.rewardsFields ?? 'live';
    const routes: Record<ServiceName, ServiceRoute[]> = {
      registry: registryRoutes({ ledger, world, catchUp }),
      gateway: gatewayRoutes({
        ledger,
        world,
        faults,
        network: bitcoinNetworkOf(network),
        cantonNetwork: network,
        catchUp,
      }),
      rewards: rewardsRoutes({
        ledger,
        faults,
        fields: () => rewardsFields,
        catchUp,
        history: readJson<RewardsHistory>(join(options.stateDir, REWARDS_HISTORY_FILE)),
      }),
      faucet: faucetRoutes({ ledger, world, faults, network, participant: first.participantId, catchUp }),
      bitcoin: bitcoinRoutes(chain, attestors),
    };
    const services = {} as Record<ServiceName, Listener>;
    const closeServices = (): Promise<unknown> => Promise.all(Object.values(services).map((l) => l.close()));
    for (const [i, name] of SERVICES.entries()) {
      const router = serviceRouter(routes[name]);
      services[name] = new Listener(
        options.host,
        nodeHandler({
          node: name,
          faults,
          log: options.requests,
          templateOf: (method, path) => router.match(method, path)?.route.template,
          dispatch: (call) =>
            dispatchService(router, call, (method, path) =>
              serviceError(name, 404, `no route ${method} ${path}`),
            ),
          failure: (status, message) => serviceError(name, status, message),
          maxBodyBytes: options.maxBodyBytes,
          onError: (error) => options.onError(error),
          hangs: () =>
            faults
              .list()
              .some(
                (f) => f.spec.kind === 'service-down' && f.spec.service === name && f.spec.mode === 'hang',
              ),
        }),
      );
      try {
        await services[name].open(options.firstPort === 0 ? 0 : options.firstPort + i);
      } catch (error) {
        await closeServices();
        throw error;
      }
    }
    return {
      nodes,
      ledger,
      world,
      chain,
      attestors,
      capacity,
      encoder,
      services,
      catchUp,
      close: async () => {
        await closeServices();
        closeLedger();
      },
    };
  } catch (error) {
    closeLedger();
    throw error;
  }
}

/** the templates and interfaces every sandbox ledger runs: the token's and the governance's */
export function sandboxCatalog(): Catalog {
  return addGovernance(tokenCatalog());
}

/**
 * An error in the service's own envelope (wrapped-api.md §6, §7.6, canton-json-api.md §5): the faucet's and the
 * rewards API's have `success`, the registry's, the gateway's and the chain's are `{"error": …}`.
 */
function serviceError(service: ServiceName, status: number, error: string): Reply {
  if (service === 'rewards') return json(status, { success: false, error });
  if (service === 'faucet') return json(status, { success: false, message: error });
  return jsonError(status, error);
}

/**
 * The sandbox host: in one process on loopback, an identity provider, N operator nodes (each a DPM API and a
 * participant JSON Ledger API) sharing one simulated synchronizer and one ledger, the token services (registry,
 * gateway, rewards, faucet, and the simulated Bitcoin chain), and an admin API for tests. State lives in the
 * state dir, so a sandbox started again on it keeps its participant ids, keys, parties, packages and contracts.
 */
import { mkdirSync } from 'node:fs';
import { join, posix, resolve } from 'node:path';
import { stringify } from 'yaml';
import { usageError } from './errors.js';
import { isLoopbackHost } from './loopback.js';
import { type AdminHost, adminHandler } from './admin.js';
import { Synchronizer } from './canton.js';
import { DpmNode, type NodeEnv } from './dpm/node.js';
import { NODE_WORKFLOWS } from './dpm/workflows/behaviour.js';
import { dispatchDpm, dpmRouter, MAX_JSON_BYTES } from './dpm/server.js';
import { DEFAULT_DOWN_MS, FaultBook, type FaultSpec, validateFaults } from './faults.js';
import { Listener, RequestLog, nodeHandler } from './http/listener.js';
import { jsonError } from './http/reply.js';
import { type IdpHandle, sandboxRealm, startIdp } from './idp.js';
import {
  SECRET_FILES,
  loadOrCreateNodes,
  loadOrCreateSecrets,
  nodeAdminClientId,
  nodeAdminSecretFile,
  operatorPasswordFile,
  secretsDir,
} from './identity.js';
import { TokenVerifier } from './auth/verifier.js';
import type { CapacitySettings } from './capacity.js';
import { type LedgerNodeEnv, dispatchLedger, ledgerRouter } from './ledger/api/server.js';
import { INSECURE_USER } from './ledger/api/context.js';
import { ledgerWebSocket } from './ledger/api/ws.js';
import { failureReply } from './ledger/errors.js';
import type { ApiProfile } from './ledger/encode.js';
import { Mesh } from './mesh.js';
import { MAX_TIME_SCALE, PROFILES, type ProfileName, scaleTimings } from './profile.js';
import { SERVICES, type ServiceName } from './faults.js';
import type { RewardsFields } from './token/rewards-api.js';
import type { World, WorldNode } from './token/world.js';
import { type TokenSide, sandboxCatalog, startTokenSide } from './token-side.js';
import { finishFork } from './fork/finish.js';
import { forkOf, recordFork, seedFork, writeNodeTables } from './fork/seed.js';
import type { ForkSummary } from './fork/snapshot.js';
import { serviceAccountSubject, userSubject } from './idp.js';

export interface SandboxOptions {
  /** default 3 */
  nodes?: number;
  /** default 127.0.0.1; must be a loopback address */
  host?: string;
  /** 0 (default): every listener on a free port; P > 0: admin P, idp P+1, node i (0-based) dpm P+2+2i, ledger P+3+2i */
  port?: number;
  /** created if missing; reused on restart (same participant ids, keys, parties, packages) */
  stateDir: string;
  /** `fast` for tests (tens of ms per step), `realistic` per the reference (seconds); default fast */
  profile?: ProfileName;
  /**
   * every duration of the profile multiplied by this factor (default 1): `realistic` at 0.1 keeps the order of
   * events of a real network in a tenth of its time
   */
  timeScale?: number;
  /** initial faults (from a --faults file) */
  faults?: FaultSpec[];
  /** DECPM_INSECURE: any token accepted; only with network devnet */
  insecure?: boolean;
  /** default devnet */
  network?: 'devnet' | 'testnet' | 'mainnet';
  /** the IdP's access-token lifetime, default 300 */
  accessTokenTtlSeconds?: number;
  /** which Canton release the ledger API behaves as; default by network (devnet 3.5, others 3.4) */
  ledgerApi?: ApiProfile;
  /** overrides of the profile's capacity model (latency per submission, transactions per window) */
  capacity?: Partial<CapacitySettings>;
  /** the rewards API's field names; default live (the reference's), `document` for an older document's */
  rewardsFields?: RewardsFields;
  /**
   * Canton's `max-deduplication-duration`, in seconds: how long a participant refuses a command id it has
   * committed (DUPLICATE_COMMAND). Default 604800 (7 days, Canton's default); 0: no deduplication at all.
   */
  maxDeduplicationDuration?: number;
  /**
   * A fork snapshot (`@ledgerbook/sandbox`'s ForkRecord lines, written by `ledgerbook sandbox up --fork`): a state
   * dir that holds no sandbox yet is seeded from it — the network's nodes, parties, packages, DPM tables and the
   * contracts its parties see — and the sandbox starts as a copy of that network. Refused on a state dir that
   * holds a sandbox (a fork or not).
   */
  fork?: string;
  /**
   * The world's instrument (admin party id and instrument id) on a new state dir, when not the sandbox's
   * `cbtc-network` CBTC: the world is then that network's, as a fork of it adopts (kept in the state dir's
   * world.json). A fork takes the instrument its snapshot names instead.
   */
  instrument?: { admin: string; id: string };
}

export interface SandboxUrls {
  idp: { issuer: string; tokenUrl: string };
  nodes: Array<{ name: string; participantId: string; dpm: string; ledger: string }>;
  registry: string;
  gateway: string;
  rewards: string;
  faucet: string;
  bitcoin: string;
  admin: string;
}

/** How a target file names what lies outside it; the defaults suit a file written next to nothing in particular. */
export interface TargetFileOptions {
  /**
   * The folder the secret files are named in. Default: the state dir's `secrets/`, absolute. A relative folder is
   * resolved against the target file's folder (as the target loader does), e.g. `../../.ledgerbook/sandbox/secrets`.
   */
  secretsDir?: string;
  /** the `$schema` the editor line names; default the published URL */
  schema?: string;
  /** comment lines under the editor line (without `# `); default: which state dir wrote the file */
  comment?: string[];
  /**
   * The target of one operator (1-based): it controls only its own node, with its own password and its node's
   * own admin client; the other nodes are read (`controlled: false`) with the peers' read-only `viewer` login.
   * Default: one person holding every operator's credentials, every node controlled.
   */
  operator?: number;
}

export interface Sandbox {
  /** what `sandbox up` prints as one JSON line */
  urls: SandboxUrls;
  /** the sandbox world: the instrument, its admin, the minter, the holders… (packages/sandbox/README.md) */
  world: World;
  /** a target file (schemas/target.schema.json) for --target */
  targetYaml(options?: TargetFileOptions): string;
  /** the network this state dir was forked from and what was copied (fork.json); undefined: not a fork */
  fork: ForkSummary | undefined;
  /** the sandbox credentials by secret name, for an in-process run */
  secrets(): Record<string, string>;
  /** closes every listener and stops every node */
  stop(): Promise<void>;
}

const REALM = 'ledgerbook';
const CLI_CLIENT_ID = 'ledgerbook-cli';
const CI_CLIENT_ID = 'ledgerbook-ci';
const ADMIN_ROLE = 'dpm-admin';
const OPERATOR_PASSWORD_SECRET = 'SANDBOX_OPERATOR_PASSWORD';
const CI_CLIENT_SECRET_SECRET = 'SANDBOX_CI_CLIENT_SECRET';
const VIEWER_PASSWORD_SECRET = 'SANDBOX_VIEWER_PASSWORD';

/** the secret a full sandbox target names operatorN's password with (`index` 0-based) */
function operatorPasswordSecret(index: number): string {
  return index === 0 ? OPERATOR_PASSWORD_SECRET : `SANDBOX_OPERATOR${index + 1}_PASSWORD`;
}
const TARGET_SCHEMA_URL = 'https://ledgerbook.dev/schemas/target.schema.json';
/** Canton's default `max-deduplication-duration`: 7 days */
const DEFAULT_MAX_DEDUPLICATION_SECONDS = 7 * 24 * 3600;

interface NodeHost {
  node: DpmNode;
  dpm: Listener;
  ledger: Listener;
  restartTimer: NodeJS.Timeout | undefined;
  generation: number;
}

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  const settings = checkOptions(options);
  const { nodeCount, host, port, profile, timeScale, insecure, ledgerApi, maxDeduplicationDuration } =
    settings;
  const stateDir = resolve(options.stateDir);
  mkdirSync(stateDir, { recursive: true });
  const seed =
    options.fork === undefined ? undefined : await seedFork(stateDir, options.fork, sandboxCatalog());
  // what this state dir was forked from (recorded when the seeding start finished); a fork keeps the network's
  // nodes, whatever a later start asks for
  const fork = seed?.summary ?? forkOf(stateDir);
  const forkedNodes = seed?.header.nodes.length ?? fork?.copied['nodes'];
  const stored = loadOrCreateNodes(stateDir, forkedNodes ?? nodeCount);
  // a copy is of the network it copies
  const network = seed?.header.source.network ?? settings.network;
  // the world's instrument: the network's a fork copies, else the one asked for
  const instrument = seed?.header.instrument ?? options.instrument;
  const credentials = loadOrCreateSecrets(stateDir, stored.length);
  const faults = new FaultBook();

  const requests = new RequestLog();
  const timings = scaleTimings(PROFILES[profile], timeScale);
  const log = process.env.LEDGERBOOK_SANDBOX_LOG
    ? (line: string) => process.stderr.write(`sandbox: ${line}\n`)
    : () => undefined;

  let idp: IdpHandle | undefined;
  const hosts = new Map<string, NodeHost>();
  const admin = new Listener(host, (req, res) => adminHandler(adminHost)(req, res));
  let stopped = false;

  const restartNode = (name: string, downMs: number): void => {
    const entry = hosts.get(name);
    if (entry === undefined || stopped) return;
    // a newer restart supersedes one still pending
    const generation = ++entry.generation;
    if (entry.restartTimer !== undefined) clearTimeout(entry.restartTimer);
    entry.node.stop();
    void entry.dpm.close().then(() => {
      if (stopped || generation !== entry.generation) return;
      entry.restartTimer = setTimeout(() => {
        entry.restartTimer = undefined;
        if (stopped || generation !== entry.generation) return;
        entry.node.start();
        entry.dpm.open().catch((error: unknown) => {
          process.stderr.write(
            `sandbox ${name}: cannot listen again after a restart: ${(error as Error).message}\n`,
          );
        });
      }, downMs);
    });
  };

  const adminHost: AdminHost = {
    requests,
    faults,
    nodeNames: () => [...hosts.keys()],
    restartNode,
    state: () => ({
      canton: canton.dump(),
      ledger:
        token === undefined
          ? undefined
          : {
              end: token.ledger.end,
              activeContracts: token.ledger.activeCount(),
              parties: token.ledger.allParties().length,
              bitcoin: token.attestors.status(),
              capacity: token.capacity.current,
            },
      nodes: Object.fromEntries(
        [...hosts.values()].map(({ node }) => [
          node.name,
          {
            participantId: node.participantId,
            up: node.isUp(),
            runs: node.state.runs.map((r) => ({
              ...r,
              config_json: r.kind === 'Dars' ? '(DAR bundle omitted)' : r.config_json,
            })),
            invitations: node.state.invitations,
            peers: node.state.peers,
            registered: [...node.coordinators.keys()],
          },
        ]),
      ),
    }),
    setAccessTokenTtl: (seconds) => idp?.setAccessTokenTtl(seconds),
    token: () => token,
  };

  const canton = new Synchronizer(stateDir);
  const mesh = new Mesh(faults, timings.meshLatencyMs);
  let token: TokenSide | undefined;
  const onError =
    (name: string) =>
    (error: unknown): void => {
      process.stderr.write(`sandbox ${name}: internal error: ${(error as Error).stack ?? String(error)}\n`);
    };
  try {
    const worldNodes: WorldNode[] = stored.map((identity, i) => ({
      name: identity.name,
      participantId: identity.participantId,
      operatorUser: userSubject(REALM, `operator${i + 1}`),
      ciUser: serviceAccountSubject(CI_CLIENT_ID),
      adminUser: serviceAccountSubject(nodeAdminClientId(i)),
      viewerUser: userSubject(REALM, 'viewer'),
    }));
    token = await startTokenSide({
      stateDir,
      canton,
      nodes: worldNodes,
      faults,
      requests,
      host,
      firstPort: port === 0 ? 0 : port + 2 + 2 * stored.length,
      network,
      profile,
      timeScale,
      apiProfile: ledgerApi,
      ...(options.capacity ? { capacity: options.capacity } : {}),
      ...(options.rewardsFields ? { rewardsFields: options.rewardsFields } : {}),
      maxDeduplicationDuration,
      maxBodyBytes: MAX_JSON_BYTES,
      ...(instrument ? { instrument } : {}),
      log,
      onError: onError('token services'),
    });
    const tokenSide = token;
    if (seed !== undefined) await finishFork(tokenSide.ledger, tokenSide.world, worldNodes, seed);
    if (insecure) {
      for (const node of worldNodes) {
        if (tokenSide.ledger.user(node.participantId, INSECURE_USER) === undefined) {
          tokenSide.ledger.putUser(node.participantId, {
            id: INSECURE_USER,
            isDeactivated: false,
            annotations: {},
            rights: [{ kind: 'ParticipantAdmin' }],
            resourceVersion: 0,
          });
        }
      }
    }
    idp = await startIdp({
      host,
      port: port === 0 ? 0 : port + 1,
      ...sandboxRealm(stored.length, {
        password: credentials.operatorPasswords,
        viewerPassword: credentials.viewerPassword,
        clientSecret: credentials.ciClientSecret,
        nodeAdminSecrets: credentials.nodeAdminSecrets,
      }),
      accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 300,
      refreshInactive: () => faults.take('refresh-inactive', true) !== undefined,
      stateDir: join(stateDir, 'idp'),
    });
    const keycloakUrl = idp.issuer.slice(0, idp.issuer.length - `/realms/${REALM}`.length);
    if (seed !== undefined) {
      writeNodeTables(stateDir, seed, {
        keycloakUrl,
        realm: REALM,
        clientId: CI_CLIENT_ID,
        clientSecret: credentials.ciClientSecret,
        operator: (i) => ({
          username: `operator${i + 1}`,
          password: credentials.operatorPasswords[i] as string,
        }),
      });
    }
    const router = dpmRouter();
    const ledgerRoutes = ledgerRouter();
    const issuer = idp.issuer;
    // the participants accept tokens of every client of the realm (they check issuer, signature and expiry)
    const ledgerVerifier = new TokenVerifier(() => [
      { issuer, clientId: CLI_CLIENT_ID },
      { issuer, clientId: CI_CLIENT_ID },
      ...stored.map((_, i) => ({ issuer, clientId: nodeAdminClientId(i) })),
    ]);
    // whose credentials were used: the realm's users by name (a service account's subject names its client)
    const usernames = new Map(
      [...stored.map((_, i) => `operator${i + 1}`), 'viewer'].map((u) => [userSubject(REALM, u), u]),
    );
    const callerName = (sub: string): string => usernames.get(sub) ?? sub;
    for (const [i, identity] of stored.entries()) {
      const ledgerEnv: LedgerNodeEnv = {
        node: identity.name,
        participantId: identity.participantId,
        insecure,
        ledger: tokenSide.ledger,
        canton,
        faults,
        verifier: ledgerVerifier,
        capacity: tokenSide.capacity,
        encoder: tokenSide.encoder,
        catchUp: () => tokenSide.catchUp(),
        noteCaller: (sub) => requests.recordCaller(identity.name, 'ledger', callerName(sub)),
        log,
      };
      const env: NodeEnv = {
        stateDir,
        network,
        timings,
        faults,
        mesh,
        canton,
        participant: ledgerEnv,
        world: tokenSide.world,
        auth: insecure
          ? { insecure: true, adminRole: ADMIN_ROLE }
          : {
              insecure: false,
              keycloak: { url: keycloakUrl, realm: REALM, clientId: CLI_CLIENT_ID },
              adminRole: ADMIN_ROLE,
            },
        requestRestart: (name, downMs) => {
          setImmediate(() => restartNode(name, downMs));
        },
        noteCaller: (api, sub) => requests.recordCaller(identity.name, api, callerName(sub)),
        log,
      };
      const node = new DpmNode({ ...identity, index: i + 1 }, env, NODE_WORKFLOWS);
      const nodeError = onError(identity.name);
      const dpm = new Listener(
        host,
        nodeHandler({
          node: identity.name,
          faults,
          log: requests,
          templateOf: (method, path) => router.match(method, path)?.route.template,
          dispatch: (call) => dispatchDpm(node, router, call),
          failure: jsonError,
          maxBodyBytes: MAX_JSON_BYTES,
          onError: nodeError,
        }),
      );
      const ledger = new Listener(
        host,
        nodeHandler({
          node: identity.name,
          faults,
          log: requests,
          templateOf: (method, path) => ledgerRoutes.match(method, path)?.route.template,
          dispatch: (call) => dispatchLedger(ledgerEnv, ledgerRoutes, call),
          failure: failureReply,
          maxBodyBytes: MAX_JSON_BYTES,
          onError: nodeError,
        }),
        ledgerWebSocket(ledgerEnv, requests),
      );
      // registered before its listeners open, so that a port that cannot be taken stops what did start
      hosts.set(identity.name, { node, dpm, ledger, restartTimer: undefined, generation: 0 });
      node.start();
      await dpm.open(port === 0 ? 0 : port + 2 + 2 * i);
      await ledger.open(port === 0 ? 0 : port + 3 + 2 * i);
    }
    await admin.open(port);
    if (seed !== undefined) recordFork(stateDir, seed.summary);
  } catch (error) {
    await stopAll();
    throw error;
  }

  const tokenSide = token;
  const serviceRefused = (name: ServiceName): boolean =>
    faults
      .list()
      .some(
        (f) =>
          f.spec.kind === 'service-down' && f.spec.service === name && (f.spec.mode ?? 'refuse') === 'refuse',
      );
  const syncServices = (): void => {
    for (const name of SERVICES) {
      const listener = tokenSide.services[name];
      if (serviceRefused(name) && listener.isOpen) void listener.close();
      else if (!serviceRefused(name) && !listener.isOpen && !stopped) {
        listener.open().catch((error: unknown) => {
          process.stderr.write(`sandbox ${name}: cannot listen again: ${(error as Error).message}\n`);
        });
      }
    }
  };
  faults.onAdd((fault) => {
    if (fault.spec.kind === 'restart' && fault.spec.at === undefined) {
      faults.remove(fault.id);
      restartNode(fault.spec.node, fault.spec.downMs ?? DEFAULT_DOWN_MS);
    }
    if (fault.spec.kind === 'service-down') syncServices();
  });
  faults.onRemove((fault) => {
    if (fault.spec.kind === 'service-down') syncServices();
  });
  for (const fault of options.faults ?? []) faults.add(fault);

  async function stopAll(): Promise<void> {
    stopped = true;
    for (const entry of hosts.values()) {
      if (entry.restartTimer !== undefined) clearTimeout(entry.restartTimer);
      entry.node.stop();
    }
    await Promise.all([...hosts.values()].flatMap((e) => [e.dpm.close(), e.ledger.close()]));
    await admin.close();
    await idp?.close();
    await token?.close();
  }

  const urls: SandboxUrls = {
    idp: { issuer: idp.issuer, tokenUrl: idp.tokenUrl },
    nodes: [...hosts.values()].map(({ node, dpm, ledger }) => ({
      name: node.name,
      participantId: node.participantId,
      dpm: dpm.url,
      ledger: ledger.url,
    })),
    registry: tokenSide.services.registry.url,
    gateway: tokenSide.services.gateway.url,
    rewards: tokenSide.services.rewards.url,
    faucet: tokenSide.services.faucet.url,
    bitcoin: tokenSide.services.bitcoin.url,
    admin: admin.url,
  };

  return {
    urls,
    world: tokenSide.world,
    targetYaml: (fileOptions = {}) => targetYaml(urls, network, stateDir, tokenSide.world, fileOptions),
    fork,
    secrets: () => ({
      ...Object.fromEntries(
        credentials.operatorPasswords.map((password, i) => [operatorPasswordSecret(i), password]),
      ),
      [CI_CLIENT_SECRET_SECRET]: credentials.ciClientSecret,
    }),
    stop: stopAll,
  };
}

function checkOptions(options: SandboxOptions): {
  nodeCount: number;
  host: string;
  port: number;
  profile: ProfileName;
  timeScale: number;
  network: 'devnet' | 'testnet' | 'mainnet';
  insecure: boolean;
  ledgerApi: ApiProfile;
  maxDeduplicationDuration: number;
} {
  const nodeCount = options.nodes ?? 3;
  if (!Number.isInteger(nodeCount) || nodeCount < 1 || nodeCount > 32) {
    throw usageError(`--nodes must be a whole number from 1 to 32, got ${String(options.nodes)}`);
  }
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host)) {
    throw usageError(
      `the sandbox listens on loopback only, got --host ${host}`,
      'use 127.0.0.1 (the default), another 127.x.y.z address, or ::1',
    );
  }
  const port = options.port ?? 0;
  const last = 1 + 2 * nodeCount + SERVICES.length;
  if (!Number.isInteger(port) || port < 0 || (port > 0 && port + last > 65535)) {
    throw usageError(`--port must be 0 or a port P with room for P..P+${last}, got ${String(options.port)}`);
  }
  const profile = options.profile ?? 'fast';
  if (!(profile in PROFILES)) throw usageError(`--profile must be fast or realistic, got ${String(profile)}`);
  const timeScale = options.timeScale ?? 1;
  if (typeof timeScale !== 'number' || !(timeScale > 0 && timeScale <= MAX_TIME_SCALE)) {
    throw usageError(
      `--time-scale must be a number above 0 and at most ${MAX_TIME_SCALE}, got ${String(options.timeScale)}`,
      'e.g. --time-scale 0.1 runs the profile ten times faster, in the same order',
    );
  }
  const network = options.network ?? 'devnet';
  if (!['devnet', 'testnet', 'mainnet'].includes(network)) {
    throw usageError(`the network must be devnet, testnet or mainnet, got ${String(network)}`);
  }
  const { problems } = validateFaults(options.faults ?? []);
  if (problems.length > 0) {
    throw usageError(
      `invalid faults: ${problems.map((p) => `${p.pointer || '/'}: ${p.message}`).join('; ')}`,
      problems.find((p) => p.hint !== undefined)?.hint,
    );
  }
  const names = Array.from({ length: nodeCount }, (_, i) => `node${i + 1}`);
  for (const fault of options.faults ?? []) {
    if ('node' in fault && fault.node !== undefined && !names.includes(fault.node)) {
      throw usageError(
        `the fault ${JSON.stringify(fault)} names ${fault.node}, but the sandbox has ${names.join(', ')}`,
        'use a node of this sandbox, or start it with more --nodes',
      );
    }
  }
  const insecure = options.insecure ?? false;
  if (insecure && network !== 'devnet') {
    throw usageError(
      `--insecure is refused on ${network}: like the real server (DECPM_INSECURE), insecure mode runs on devnet only`,
      'drop --insecure, or use network devnet',
    );
  }
  const ledgerApi = options.ledgerApi ?? (network === 'devnet' ? '3.5' : '3.4');
  if (!['3.4', '3.5', 'strict'].includes(ledgerApi)) {
    throw usageError(`--ledger-api must be 3.4, 3.5 or strict, got ${String(ledgerApi)}`);
  }
  const capacity = options.capacity ?? {};
  if (capacity.latencyMs !== undefined && (!Number.isInteger(capacity.latencyMs) || capacity.latencyMs < 0)) {
    throw usageError(
      `the submission latency must be a whole number of milliseconds ≥ 0, got ${String(capacity.latencyMs)}`,
    );
  }
  if (
    capacity.limit !== undefined &&
    capacity.limit !== null &&
    (!Number.isInteger(capacity.limit) || capacity.limit < 1)
  ) {
    throw usageError(
      `the transfer limit must be a whole number ≥ 1 (or none), got ${String(capacity.limit)}`,
    );
  }
  if (capacity.windowMs !== undefined && (!Number.isInteger(capacity.windowMs) || capacity.windowMs < 1)) {
    throw usageError(
      `the transfer window must be a whole number of milliseconds ≥ 1, got ${String(capacity.windowMs)}`,
    );
  }
  const maxDeduplicationDuration = options.maxDeduplicationDuration ?? DEFAULT_MAX_DEDUPLICATION_SECONDS;
  if (
    typeof maxDeduplicationDuration !== 'number' ||
    !Number.isFinite(maxDeduplicationDuration) ||
    maxDeduplicationDuration < 0
  ) {
    throw usageError(
      `--max-deduplication-duration must be a duration of 0 or more, got ${String(options.maxDeduplicationDuration)}`,
      "e.g. 0 (no deduplication), 30s, or 168h (7 days, Canton's default)",
    );
  }
  return {
    nodeCount,
    host,
    port,
    profile,
    timeScale,
    network,
    insecure,
    ledgerApi,
    maxDeduplicationDuration,
  };
}

/**
 * The party node i's operator acts as (its member party in decentralized parties and contracts): allocated on
 * that participant, so it shares the participant's namespace, as parties a participant allocates do.
 */
function operatorParty(participantId: string, index: number): string {
  return `operator${index + 1}::${participantId.slice(participantId.indexOf('::') + 2)}`;
}

/**
 * The parties a sandbox target names: the instrument admins and the faucet to refer to; the minter, two holders
 * and the preapproved receiver to act as, each through the node that hosts it with that node's operator.
 */
function targetParties(world: World): Record<string, unknown> {
  const acting = (party: string): { party: string; node: string } => ({
    party,
    node: world.hostOf.get(party) ?? 'node1',
  });
  return {
    admin: world.admin,
    'other-admin': world.otherAdmin,
    faucet: world.faucet,
    minter: acting(world.minter),
    alice: acting(world.holders[0] as string),
    bob: acting(world.holders[1] as string),
    preapproved: acting(world.preapproved),
  };
}

/**
 * The target file for --target: the IdP, each node's URLs and login, and where the secrets are. By default every
 * node is controlled, each with its operator's own password; with `operator` only that operator's node is.
 */
function targetYaml(
  urls: SandboxUrls,
  network: string,
  stateDir: string,
  world: World,
  options: TargetFileOptions,
): string {
  const secrets = options.secretsDir ?? secretsDir(stateDir);
  // posix separators: a committed target names the same files on every system
  const secretFile = (name: string): string =>
    options.secretsDir === undefined ? join(secrets, name) : posix.join(secrets, name);
  const auth = (username: string, secret: string): Record<string, unknown> => ({
    issuer: urls.idp.issuer,
    clientId: CLI_CLIENT_ID,
    grant: 'password',
    username,
    password: { secret },
  });
  const own = options.operator === undefined ? undefined : options.operator - 1;
  if (own !== undefined && (!Number.isInteger(own) || own < 0 || own >= urls.nodes.length))
    throw new RangeError(`operator must be 1 to ${urls.nodes.length}, got ${String(options.operator)}`);
  const nodeAuth = (i: number): Record<string, unknown> => {
    if (own === undefined)
      return i === 0 ? {} : { auth: auth(`operator${i + 1}`, operatorPasswordSecret(i)) };
    return i === own ? {} : { controlled: false, auth: auth('viewer', VIEWER_PASSWORD_SECRET) };
  };
  const target = {
    name: 'sandbox',
    network,
    auth: auth(`operator${(own ?? 0) + 1}`, OPERATOR_PASSWORD_SECRET),
    nodes: Object.fromEntries(
      urls.nodes.map((n, i) => [
        n.name,
        {
          participantId: n.participantId,
          dpm: n.dpm,
          ledger: n.ledger,
          party: operatorParty(n.participantId, i),
          ...nodeAuth(i),
        },
      ]),
    ),
    services: {
      registry: urls.registry,
      gateway: urls.gateway,
      rewards: urls.rewards,
      faucet: urls.faucet,
      bitcoin: urls.bitcoin,
    },
    instrument: { admin: world.instrument.admin, id: world.instrument.id },
    parties: targetParties(world),
    secrets:
      own === undefined
        ? {
            ...Object.fromEntries(
              urls.nodes.map((_, i) => [
                operatorPasswordSecret(i),
                { file: secretFile(operatorPasswordFile(i)) },
              ]),
            ),
            [CI_CLIENT_SECRET_SECRET]: { file: secretFile(SECRET_FILES.ciClientSecret) },
          }
        : {
            // the same names as in the full target, so that every playbook runs unchanged: this operator's own
            [OPERATOR_PASSWORD_SECRET]: { file: secretFile(operatorPasswordFile(own)) },
            [CI_CLIENT_SECRET_SECRET]: { file: secretFile(nodeAdminSecretFile(own)) },
            [VIEWER_PASSWORD_SECRET]: { file: secretFile(SECRET_FILES.viewerPassword) },
          },
  };
  const comment = options.comment ?? [`written by the ledgerbook sandbox (state dir ${stateDir})`];
  return [
    `# yaml-language-server: $schema=${options.schema ?? TARGET_SCHEMA_URL}`,
    ...comment.map((line) => (line === '' ? '#' : `# ${line}`)),
    stringify(target),
  ].join('\n');
}

/**
 * The DPM's own errors with a known cause (docs/reference/dpm-api.md §0.1, §5–§8), each mapped to what an
 * operator should do next, in one table. `explainDpmError` gives a ServiceError from the DPM client the hint of the
 * first matching rule (and, for the few refusals that clear up by themselves, a transient retryability; for a
 * governance write that lost a race for the rules contract, backpressure, which the engine's pacing answers).
 */
import { IDP_SERVICE } from './auth.js';
import { ServiceError } from '../errors.js';
import type { Retryability } from '../errors.js';
import { onboardingMeshErrorResponseSchema } from './dpm-wire.js';
import type { OnboardingMeshErrorResponse } from './dpm-wire.js';
import { wireProblems } from './schema-check.js';

export interface DpmErrorRule {
  /** a short name, for tests and docs */
  name: string;
  statuses: readonly number[];
  /** matched against the DPM's error text; omitted: any text (or none) */
  match?: RegExp;
  hint(match: RegExpMatchArray | null, error: ServiceError): string | undefined;
  /** overrides the HTTP layer's retryability */
  retryability?: Retryability;
  /** only for these paths (the route's path, filled in) */
  paths?: RegExp;
  /**
   * with a transient retryability: contention, which the engine answers by backing off (with jitter) before the
   * next attempt. The DPM passes the participant's refusal on as text, without its retry information.
   */
  contention?: true;
}

const MAX_EDGES_SHOWN = 6;

function meshHint(error: ServiceError): string | undefined {
  if (wireProblems(onboardingMeshErrorResponseSchema, error.body).length > 0) return undefined;
  const edges = (error.body as OnboardingMeshErrorResponse).missing_edges;
  const described = edges
    .slice(0, MAX_EDGES_SHOWN)
    .map((e) =>
      e.kind === 'mesh_hole'
        ? `${e.from} does not list ${e.to}`
        : `the coordinator ${e.from} cannot reach ${e.to}`,
    );
  const more = edges.length > MAX_EDGES_SHOWN ? `; … (${edges.length - MAX_EDGES_SHOWN} more)` : '';
  return (
    `the peer mesh is incomplete: ${described.join('; ')}${more}. Every member's POST /network-config must list ` +
    'every other member with its current key and address (the dpm.network step), and each must be reachable'
  );
}

export const DPM_ERROR_RULES: readonly DpmErrorRule[] = [
  {
    name: 'mesh-preflight',
    statuses: [422],
    hint: (_m, error) => meshHint(error),
  },
  {
    // every blocking peer is only unreachable (it restarts, its network blips): nothing started, so starting again
    // once it answers is safe; a peer that answers with an old version (or none) stays permanent, below
    name: 'version-gate-unreachable',
    statuses: [409],
    match: /every invited peer must run dec-party-manager >= 0\.1\.9[^]*?Blocking peer\(s\): (.*?)\. Upgrade/,
    retryability: 'transient',
    hint: (m) => {
      // `<peer> (<reason>)`, separated by `; `: the reasons of an old or silent peer name a version
      const peers = (m?.[1] ?? '').split('; ');
      if (!peers.every((p) => p.includes(' (could not verify version'))) return undefined;
      return (
        'a peer could not be reached to check its version (the message names it): it may be restarting; the ' +
        "start is tried again under the step's retry policy. If it stays down, bring it up or leave it out"
      );
    },
  },
  {
    name: 'version-gate',
    statuses: [409],
    match: /every invited peer must run dec-party-manager >= 0\.1\.9/,
    hint: () =>
      'a peer is unreachable or older than 0.1.9 (the message names the blocking peers): check GET ' +
      '/participants-status on this node (every invited peer Connected, version ≥ 0.1.9), bring it up or upgrade ' +
      'it, or leave it out; then start again',
  },
  {
    name: 'same-party-in-flight',
    statuses: [409],
    match: /already has an? (\w+) workflow in flight \(run ([^)]+)\)/,
    hint: (m) =>
      `run ${m?.[2] ?? '?'} (${m?.[1] ?? '?'}) is in flight for this party on this node: wait for it to finish ` +
      `(GET /workflows) or cancel it (POST /workflows/${m?.[2] ?? '<instance>'}/cancel) before starting another`,
  },
  {
    name: 'admin-role',
    statuses: [403],
    match: /missing required role: (.+)/,
    hint: (m) =>
      `the token lacks the DPM admin role '${m?.[1] ?? '?'}' (DECPM_ADMIN_ROLE on that node): grant it to the ` +
      'client or user in the identity provider',
  },
  {
    name: 'party-credentials-missing',
    statuses: [401],
    match: /No credentials configured for party/,
    hint: () =>
      'this node keeps no credentials for the party, and its governance and ledger routes act with them: save ' +
      "them with PUT /party-config (the dpm.party-config step; the operator's own node for each member)",
  },
  {
    name: 'party-token-failed',
    statuses: [500],
    match: /Failed to (?:fetch|get) auth token/,
    hint: () =>
      "the node could not log in with the party's saved credentials (PUT /party-config): check the client id " +
      'and secret (or user and password) there against the identity provider, then save them again',
  },
  {
    name: 'ledger-rights-missing',
    statuses: [500],
    match: /PERMISSION_DENIED|PermissionDenied/,
    hint: () =>
      "the party's ledger user on this node lacks the rights to act as (or read as) the member party: grant " +
      'them with POST /auth/grant-rights (the dpm.grant-rights step) and check GET /auth/status',
  },
  {
    // the participant refused the write: another member's write holds the rules contract (locked while its
    // transaction is in flight: seconds on a real network) or consumed it since it was read. Nothing happened;
    // read the rules again and send with the new id, after a pause.
    name: 'governance-contention',
    statuses: [500],
    paths: /^\/governance\//,
    match: /LOCAL_VERDICT_LOCKED_CONTRACTS|LOCKED_CONTRACTS|CONTRACT_NOT_FOUND/,
    retryability: 'transient',
    contention: true,
    hint: () =>
      'another member’s write holds or consumed a contract the request names: each confirm and execute consumes ' +
      'and re-creates GovernanceRules, so read GET /governance/state again and send with its current ' +
      'rules_contract_id after a pause (a proposal or confirmation named may also have been executed, expired ' +
      'or cancelled meanwhile)',
  },
  {
    name: 'governance-package-missing',
    statuses: [500],
    match: /PACKAGE_NAMES_NOT_FOUND|NO_VETTED_PACKAGE|PACKAGE_SELECTION_FAILED/,
    hint: () =>
      "the participant lacks the governance package the request's template is in: upload and vet it on every " +
      'member node (dpm.distribute-dars) before proposing',
  },
  {
    name: 'token-refused',
    statuses: [401],
    hint: () =>
      'the DPM refused the token: the node must trust its issuer (DECPM_KEYCLOAK_URL and realm, or a party ' +
      "IdP saved with PUT /party-config), its azp must be the node's configured client id, and it must not be expired",
  },
  {
    name: 'prefix-taken',
    statuses: [409],
    match: /A decentralized party with the prefix '([^']*)' already exists \(([^)]+)\)/,
    hint: (m) => `party ${m?.[2] ?? '?'} already uses this prefix: adopt that party or choose another prefix`,
  },
  {
    name: 'instance-running',
    statuses: [409],
    match: /A workflow with instance (\S+) is already running/,
    hint: (m) =>
      `a run named ${m?.[1] ?? '?'} is already running or starting on this node (GET /workflows lists it once ` +
      'its start finished): instance names are per prefix (onboarding) or per second (the other kinds), so a ' +
      'second start of the same kind and party in the same second collides with the first — follow that run',
  },
  {
    name: 'party-cache-stale',
    statuses: [409],
    match: /is not present in cached decentralized party|No cached membership for/,
    // the cache is rewritten in the background after every live read: it holds the keys again in a moment
    retryability: 'transient',
    hint: () =>
      "the node's party cache lacks the members or their owner keys: GET /decentralized-parties?refresh=true, " +
      "then read it again until every member's owner_key appears, and start again",
  },
  {
    name: 'run-initializing',
    statuses: [409],
    match: /workflow is still initializing/,
    retryability: 'transient',
    hint: () => 'the run is still starting; try again in a moment',
  },
  {
    name: 'bootstrap-race',
    statuses: [409],
    match: /bootstrap already in progress/,
    retryability: 'transient',
    hint: () => 'another first PUT /party-config is being saved on this node; try again in a moment',
  },
  {
    name: 'nothing-to-cancel',
    statuses: [409],
    match: /No in-flight workflow run named|No [\w-]+ workflow in progress/,
    hint: () =>
      'the run is not in flight on this node (finished, failed, a peer row, or unknown): read GET /workflows',
  },
  {
    name: 'retry-not-failed',
    statuses: [409],
    match: /Cannot retry a workflow in status (\w+)/,
    hint: (m) => `only a failed coordinator run can be retried; this one is ${m?.[1] ?? 'not failed'}`,
  },
  {
    name: 'retry-on-peer',
    statuses: [409],
    match: /Retry must be initiated from the coordinator side/,
    hint: () => 'call retry on the coordinator node; the peer rows follow by themselves',
  },
  {
    name: 'dismiss-in-progress',
    statuses: [409],
    match: /is still in progress — cancel it first/,
    hint: () => 'cancel the run (POST /workflows/{instance}/cancel) before dismissing it',
  },
  {
    name: 'run-not-found',
    statuses: [404],
    match: /workflow run .* not found/,
    hint: () => 'no run of that name on this node: read GET /workflows',
  },
  {
    name: 'invitation-gone',
    statuses: [404],
    match: /Invitation not found/,
    hint: () =>
      'the invitation is gone (already accepted or declined here, or never received): read GET /invitations and GET /workflows',
  },
  {
    name: 'already-participating',
    statuses: [409],
    match: /Already participating in workflow run (\S+)/,
    hint: (m) => `this node already accepted run ${m?.[1] ?? '?'}; its peer row is in GET /workflows`,
  },
  {
    name: 'request-not-parsed',
    statuses: [400],
    match: /^(?:Json deserialize error|Content type error|Query deserialize error|Json payload error)/,
    hint: () => 'the DPM could not parse the request: is its version one this ledgerbook supports?',
  },
  {
    name: 'payload-too-large',
    statuses: [413],
    hint: () => "the request exceeds the DPM's 100 MiB limit: send fewer or smaller DARs per request",
  },
  {
    name: 'unknown-route',
    statuses: [404],
    match: /^$/,
    hint: () => 'the DPM does not know this route (an empty 404): is its version recent enough?',
  },
  {
    name: 'web-ui-answered',
    statuses: [200],
    match: /^unexpected response: expected a JSON body, got text\/html/,
    hint: () =>
      'the DPM answered with its web UI, as it does for GET paths it does not know: the route is missing on this ' +
      'DPM version, or the URL points at the UI rather than the API',
  },
];

/** The same error with the hint (and retryability) of the first matching rule; unchanged when none matches. */
export function explainDpmError(error: ServiceError): ServiceError {
  // the identity provider's own refusal (a wrong password on re-login) already says what to check
  if (error.status === undefined || error.service === IDP_SERVICE) return error;
  const text = error.serviceMessage ?? '';
  for (const rule of DPM_ERROR_RULES) {
    if (!rule.statuses.includes(error.status)) continue;
    if (rule.paths && !rule.paths.test(error.path)) continue;
    const match = rule.match ? text.match(rule.match) : null;
    if (rule.match && match === null) continue;
    const hint = rule.hint(match, error);
    if (hint === undefined) continue;
    return new ServiceError(
      {
        service: error.service,
        method: error.method,
        path: error.path,
        status: error.status,
        serviceMessage: error.serviceMessage,
        retryability: rule.retryability ?? error.retryability,
        ...(rule.contention ? { backpressure: {} } : {}),
        hint,
        body: error.body,
      },
      error.cause,
    );
  }
  return error;
}

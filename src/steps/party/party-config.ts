/**
 * dpm.party-config — the credentials a node uses to act for a decentralized party (dpm-api.md §3, §9): per node,
 * PUT /party-config with the node's member party, the ledger user and a Keycloak client; then GET /auth/status
 * must show the node can get a token for the party, and says which ledger rights its user still lacks (those
 * dpm.grant-rights grants). The DPM never returns a secret, only whether one is stored:
 * a changed secret cannot be seen, so `rotate: true` sends it again.
 */
import type { PartyAuthStatus, PartyConfigRequest, PartyConfigResponse } from '../../clients/dpm-wire.js';
import { defineStep, type Change, type ItemContext, type Outputs, type StepContext } from '../contract.js';
import { StepError } from '../../errors.js';
import { enforceChecks, refused, resolveParty } from './party-common.js';
import { nodesOrControlled } from './party-common.declaration.js';
import { check, dpmPartyConfigDeclaration, type With } from './party-config.declaration.js';
import { isControlled, readEach, targetNode } from './workflow-runs.js';

interface NodeState {
  controlled: boolean;
  member: string | undefined;
  url: string;
  realm: string;
  config: PartyConfigResponse;
  auth: PartyAuthStatus | undefined;
}

interface Observed {
  partyId: string;
  nodes: Record<string, NodeState>;
}

/** Keycloak URL and realm: given, or split from the node's (else the target's) issuer `<url>/realms/<realm>`. */
function keycloakOf(ctx: StepContext, w: With, node: string): { url: string; realm: string } {
  if (w.keycloak.url !== undefined && w.keycloak.realm !== undefined)
    return { url: w.keycloak.url, realm: w.keycloak.realm };
  const issuer = targetNode(ctx, node).auth?.issuer ?? ctx.target?.auth?.issuer;
  const match = issuer === undefined ? null : /^(.*)\/realms\/([^/]+)\/?$/.exec(issuer);
  if (!match?.[1] || !match[2]) {
    throw new StepError(
      `keycloak.url and keycloak.realm are not set, and ${node}'s issuer does not name them`,
      {
        hint: `set keycloak.url (IDP_HOST) and keycloak.realm (IDP_REALM); the target's issuer is ${issuer ?? 'not set'}`,
      },
    );
  }
  return { url: w.keycloak.url ?? match[1], realm: w.keycloak.realm ?? match[2] };
}

async function observe(ctx: StepContext, w: With): Promise<Observed> {
  enforceChecks(ctx, w, check);
  const names = nodesOrControlled(w.nodes, ctx.target);
  const first = names[0];
  if (first === undefined) throw new StepError('no node to configure');
  const partyId = await resolveParty(ctx, first, w.party);
  const nodes: Record<string, NodeState> = {};
  const answers = await readEach(ctx, names, (node) => {
    const dpm = ctx.clients.dpm(node);
    return Promise.all([
      dpm.partyConfig(partyId, { signal: ctx.signal }),
      dpm.authStatus({ signal: ctx.signal }),
    ]);
  });
  for (const [i, node] of names.entries()) {
    const [config, { parties }] = answers[i]!;
    nodes[node] = {
      controlled: isControlled(ctx, node),
      member: w.member_parties?.[node] ?? targetNode(ctx, node).party,
      ...keycloakOf(ctx, w, node),
      config,
      auth: parties.find((p) => p.dec_party_id === partyId),
    };
  }
  // one line for the step, not one per node; news only when a later step of the playbook grants them
  const lacking = Object.entries(nodes).filter(
    ([, n]) => missingRights(n.auth).length > 0 && differences(w, n).length === 0,
  );
  const lacked = lacking[0];
  if (lacked) {
    const where = lacking.map(([node]) => node).join(', ');
    const note = rightsNote(where, partyId, missingRights(lacked[1].auth), ctx);
    ctx.log(note.level, note.text);
  }
  const settled = Object.values(nodes).every(
    (n) => differences(w, n).length === 0 && authProblem(n) === undefined,
  );
  if (settled && w.rotate !== true) {
    ctx.log(
      'info',
      'the stored credentials match; a secret changed since cannot be seen (the DPM never returns one): set rotate: true to send it again',
    );
  }
  return { partyId, nodes };
}

/** What differs between the node's stored configuration and the declared one; secrets only as present/absent. */
function differences(w: With, s: NodeState): string[] {
  const c = s.config;
  const diffs: string[] = [];
  const field = (name: string, have: string | null | undefined, want: string): void => {
    if ((have ?? '') !== want)
      diffs.push(`${name} ${JSON.stringify(want)} (now ${JSON.stringify(have ?? '')})`);
  };
  if (c.member_party_id === undefined || c.member_party_id === null) return ['nothing configured yet'];
  field('member_party_id', c.member_party_id, s.member ?? '');
  field('user_id', c.user_id, w.user_id);
  field('keycloak_url', c.keycloak_url, s.url);
  field('keycloak_realm', c.keycloak_realm, s.realm);
  field('keycloak_client_id', c.keycloak_client_id, w.keycloak.client_id);
  if (c.auth0_domain) diffs.push(`the Auth0 configuration (${c.auth0_domain}) replaced by Keycloak`);
  if (w.keycloak.client_secret !== undefined && !c.has_client_secret)
    diffs.push('the client secret (none stored)');
  if (w.keycloak.username !== undefined && (!c.has_username || !c.has_password))
    diffs.push('the username and password (none stored)');
  if (w.keycloak.username === undefined && (c.has_username || c.has_password))
    diffs.push(
      'the stored username and password cleared (the node would use them instead of the client secret)',
    );
  return diffs;
}

/**
 * The ledger rights GET /auth/status says the party's user lacks on the node (actAs/readAs on the member party,
 * readAs on the decentralized party): without them the node's governance writes are refused and its reads come
 * back empty. Granting them takes an administrator's credentials: dpm.grant-rights.
 */
function missingRights(auth: PartyAuthStatus | undefined): string[] {
  const rights = auth?.rights;
  if (auth === undefined || auth.status.status === 'failed' || auth.status.status === 'notconfigured')
    return [];
  if (rights === undefined || rights === null) return ['the ledger user (not on the participant)'];
  return Object.entries(rights)
    .filter(([key, value]) => value !== true && key !== 'dec_party_act_as')
    .map(([key]) => key);
}

/** What lacking rights mean: a warning, unless a later step of the playbook grants them (then only news). */
function rightsNote(
  nodes: string,
  partyId: string,
  missing: readonly string[],
  ctx: StepContext,
): { level: 'info' | 'warn'; text: string } {
  const lacks = `${nodes}: the ledger user of party ${partyId} lacks ${missing.join(', ')}`;
  const granting = ctx.laterStep('dpm.grant-rights');
  return granting === undefined
    ? {
        level: 'warn',
        text: `${lacks}: its governance writes will be refused and its reads come back empty; grant them with dpm.grant-rights`,
      }
    : {
        level: 'info',
        text: `${lacks}: step ${granting} (dpm.grant-rights) grants them later in this playbook`,
      };
}

function authProblem(s: NodeState): string | undefined {
  const status = s.auth?.status;
  if (status === undefined) return 'GET /auth/status does not list the party';
  if (status.status === 'failed') return `token request failed: ${status.error}`;
  if (status.status === 'notconfigured') return 'not configured';
  return undefined;
}

function plan(w: With, state: Observed, item: { key: string }): { changes: Change[]; outputs?: Outputs } {
  const node = item.key;
  const s = state.nodes[node];
  if (!s) throw new StepError(`no observation of ${node}`);
  if (s.member === undefined)
    throw new StepError(`${node} has no operator party (nodes.${node}.party or member_parties.${node})`);
  const diffs = differences(w, s);
  const failing = diffs.length === 0 ? authProblem(s) : undefined;
  const details = { node, party: state.partyId };
  if (diffs.length > 0) {
    const created = diffs[0] === 'nothing configured yet';
    return {
      changes: [
        {
          action: created ? 'create' : 'update',
          summary: created
            ? `configure party ${state.partyId} on ${node}: member ${s.member}, user ${w.user_id}, Keycloak client ${w.keycloak.client_id} (${s.url}, realm ${s.realm})`
            : `update the party configuration on ${node}: ${diffs.join('; ')}`,
          details,
        },
      ],
    };
  }
  if (failing !== undefined) {
    return {
      changes: [
        { action: 'update', summary: `send the credentials to ${node} again: its ${failing}`, details },
      ],
    };
  }
  if (w.rotate === true) {
    return {
      changes: [
        {
          action: 'update',
          summary: `send the secret to ${node} again (rotate: true; a changed secret cannot be detected: the DPM never returns it)`,
          details,
        },
      ],
    };
  }
  return {
    changes: [],
    outputs: {
      party_id: state.partyId,
      status: s.auth?.status.status ?? 'unknown',
      missing_rights: missingRights(s.auth),
    },
  };
}

async function apply(ctx: ItemContext, w: With, item: { key: string }, state: Observed): Promise<Outputs> {
  const node = item.key;
  const s = state.nodes[node];
  if (!s?.member) throw new StepError(`no observation of ${node}`);
  const request: PartyConfigRequest = {
    dec_party_id: state.partyId,
    member_party_id: s.member,
    user_id: w.user_id,
    keycloak_url: s.url,
    keycloak_realm: s.realm,
    keycloak_client_id: w.keycloak.client_id,
    ...(w.keycloak.client_secret !== undefined ? { keycloak_client_secret: w.keycloak.client_secret } : {}),
    // "" clears: a stored login would be used instead of the client secret
    keycloak_username: w.keycloak.username ?? '',
    keycloak_password: w.keycloak.password ?? '',
  };
  const dpm = ctx.clients.dpm(node);
  await ctx.record({ action: 'put-party-config', node, party: state.partyId });
  try {
    await dpm.putPartyConfig(request, { signal: ctx.signal });
  } catch (error) {
    throw refused(`${node} refused the party configuration of ${state.partyId}`, error);
  }
  const { parties } = await dpm.authStatus({ signal: ctx.signal });
  const auth = parties.find((p) => p.dec_party_id === state.partyId);
  const problem = authProblem({ ...s, auth });
  if (problem !== undefined || !auth) {
    throw new StepError(`${node} cannot act for ${state.partyId}: ${problem ?? 'no auth status'}`, {
      hint: `GET /auth/status on ${node}: check keycloak.client_id and its secret (or username/password), and that ${s.url}/realms/${s.realm} is reachable from the node`,
    });
  }
  ctx.log('info', `${node}: party ${state.partyId} configured; auth status ${auth.status.status}`);
  const missing = missingRights(auth);
  // when a later step grants the rights, the line above is enough: that step lists what it grants, per node
  if (missing.length > 0 && ctx.laterStep('dpm.grant-rights') === undefined) {
    const note = rightsNote(node, state.partyId, missing, ctx);
    ctx.log(note.level, note.text, { once: 'missing rights' });
  }
  return { party_id: state.partyId, status: auth.status.status, missing_rights: missingRights(auth) };
}

export const dpmPartyConfig = defineStep<With, Observed, string>({
  ...dpmPartyConfigDeclaration,
  items: (w, ctx) => nodesOrControlled(w.nodes, ctx.target).map((node) => ({ key: node, value: node })),
  itemsFrom: ['nodes'],
  observe,
  plan,
  apply: (ctx, w, item, _plan, state) => apply(ctx, w, item, state),
  // PUT /party-config stores the same row again: a crash is settled by observing
  reconcile: () => Promise.resolve({ status: 'not-done', note: 'the party configuration is observed again' }),
  combine: (_w, results) => ({
    party_id: results[0]?.outputs['party_id'] ?? null,
    statuses: Object.fromEntries(results.map((r) => [r.key, r.outputs['status'] ?? null])),
    missing_rights: Object.fromEntries(results.map((r) => [r.key, r.outputs['missing_rights'] ?? []])),
  }),
});

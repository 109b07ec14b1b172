/**
 * dpm.grant-rights — the ledger rights a node's user needs to act for a decentralized party (dpm-api.md §9,
 * §12a "Party credentials"): actAs and readAs on the node's member party and on the decentralized party, granted
 * with an administrator client of the node's identity provider (POST /auth/grant-rights). In sync when
 * GET /auth/status shows every right; granting again changes nothing.
 */
import { defineStep, type Outputs, type StepContext } from '../contract.js';
import { StepError } from '../../errors.js';
import { authOf, type NodeAuth } from './governance-common.js';
import { check, dpmGrantRightsDeclaration, type With } from './grant-rights.declaration.js';
import { enforceChecks, refused, resolveParty } from './party-common.js';
import { nodesOrControlled } from './party-common.declaration.js';

interface Observed {
  partyId: string;
  nodes: Record<string, NodeAuth>;
}

async function observe(ctx: StepContext, w: With): Promise<Observed> {
  enforceChecks(ctx, w, check);
  const names = nodesOrControlled(w.nodes, ctx.target);
  const partyId = await resolveParty(ctx, names[0]!, w.party);
  const auths = await authOf(ctx, names, partyId);
  return { partyId, nodes: Object.fromEntries(auths.map((a) => [a.node, a])) };
}

function plan(_w: With, s: Observed, item: { key: string }) {
  const auth = s.nodes[item.key];
  if (!auth) throw new StepError(`no observation of ${item.key}`);
  if (auth.member === undefined) {
    throw new StepError(
      `${item.key} has no credentials for ${s.partyId}: there is no ledger user to grant rights to`,
      {
        hint: `configure the party on ${item.key} first (dpm.party-config)`,
      },
    );
  }
  if (auth.missingRights.length === 0 && auth.problem === undefined)
    return { changes: [], outputs: { party_id: s.partyId, status: 'granted' } };
  return {
    changes: [
      {
        action: 'update' as const,
        summary: `grant the party's ledger user on ${item.key} ${auth.missingRights.join(', ') || 'its rights'} (actAs and readAs on ${auth.member} and on ${s.partyId})`,
        details: { node: item.key, party: s.partyId },
      },
    ],
  };
}

async function apply(
  ctx: StepContext & { record: (i: { action: string; node: string }) => Promise<void> },
  w: With,
  node: string,
  s: Observed,
): Promise<Outputs> {
  const dpm = ctx.clients.dpm(node);
  await ctx.record({ action: 'grant-rights', node });
  let rights;
  try {
    ({ rights } = await dpm.grantRights(
      {
        dec_party_id: s.partyId,
        admin_client_id: w.admin_client_id,
        admin_client_secret: w.admin_client_secret,
      },
      { signal: ctx.signal },
    ));
  } catch (error) {
    throw refused(`${node} did not grant the rights for ${s.partyId}`, error);
  }
  const missing = Object.entries(rights)
    .filter(([, v]) => v !== true)
    .map(([k]) => k);
  if (missing.length > 0) {
    throw new StepError(
      `${node} granted the rights for ${s.partyId}, but its user still lacks ${missing.join(', ')}`,
      {
        hint: `GET /auth/status on ${node}: the party's ledger user (the subject of its token) must be the user the rights went to`,
      },
    );
  }
  ctx.log('info', `${node}: the party's ledger user may act and read as its member party and ${s.partyId}`);
  return { party_id: s.partyId, status: 'granted' };
}

export const dpmGrantRights = defineStep<With, Observed, string>({
  ...dpmGrantRightsDeclaration,
  items: (w, ctx) => nodesOrControlled(w.nodes, ctx.target).map((node) => ({ key: node, value: node })),
  observe,
  plan,
  apply: (ctx, w, item, _plan, state) => apply(ctx, w, item.key, state),
  // granting again changes nothing: a crash is settled by observing
  reconcile: () => Promise.resolve({ status: 'not-done', note: 'the rights are observed again' }),
  combine: (_w, results) => ({
    party_id: results[0]?.outputs['party_id'] ?? null,
    statuses: Object.fromEntries(results.map((r) => [r.key, r.outputs['status'] ?? null])),
  }),
});

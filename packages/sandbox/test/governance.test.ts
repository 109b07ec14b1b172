/**
 * Governance on the sandbox ledger, through the nodes' DPM APIs (dpm-api.md §11): the rules contract the
 * Contracts run creates, confirmations that consume and re-create it, execution at the threshold, stale ids,
 * domain proposals, the mint and burn requests a governance party accepts, and what a node without credentials
 * or rights answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type World, operatorPartyOf, startWorld, waitFor } from '../testing/helpers.js';
import {
  type GovernedParty,
  confirm,
  confirmationsOn,
  governedParty,
  rulesId,
  stateOn,
} from '../testing/governance-helpers.js';
import { type TokenWorld, isoIn, tokenWorld, walletFor } from '../testing/token-helpers.js';

const MINT_REQUEST = '#utility-registry-app-v0:Utility.Registry.App.V0.Model.Mint:MintRequest';

let world: World;
let gov: GovernedParty;
let tokens: TokenWorld;

beforeAll(async () => {
  world = await startWorld();
  gov = await governedParty(world, { instrument: 'ALPHA' });
  tokens = await tokenWorld(world);
});
afterAll(async () => world.stop());

describe('the rules contract', () => {
  it('is on the ledger after the Contracts run: every node reads the same state', async () => {
    const states = await Promise.all(world.dpm.map((api) => stateOn(api, gov.partyId)));
    for (const state of states) {
      expect(state).toMatchObject({
        vault_manager: gov.partyId,
        members: gov.members,
        threshold: 2,
        action_confirmation_timeout_microseconds: 86_400_000_000,
        out_of_date: false,
      });
      expect(state?.contract_id).toBe(states[0]?.contract_id);
    }
  });
});

describe('a self-management action', () => {
  const action = { type: 'governance_set_timeout', new_timeout_microseconds: 43_200_000_000 };

  it('is confirmed by one member (the rules id changes), by a second (executable), then executed once', async () => {
    const before = await rulesId(world.dpm[0]!, gov.partyId);
    const first = await confirm(world.dpm[0]!, gov.partyId, action);
    expect([first.status, first.body]).toEqual([200, { message: 'Confirmation submitted successfully' }]);
    const after = await rulesId(world.dpm[0]!, gov.partyId);
    expect(after).not.toBe(before);

    let seen = (await confirmationsOn(world.dpm[1]!, gov.partyId)).actions;
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ action, confirmation_count: 1, can_execute: false });
    expect(seen[0]?.confirmations.map((c) => c.confirming_party)).toEqual([gov.members[0]]);

    const second = await confirm(world.dpm[1]!, gov.partyId, action);
    expect(second.status, second.text).toBe(200);
    seen = (await confirmationsOn(world.dpm[2]!, gov.partyId)).actions;
    expect(seen[0]).toMatchObject({ confirmation_count: 2, can_execute: true });

    const executed = await world.dpm[2]!.post('/governance/execute', {
      party_id: gov.partyId,
      rules_contract_id: await rulesId(world.dpm[2]!, gov.partyId),
      action,
      confirmation_cids: seen[0]!.confirmations.map((c) => c.contract_id),
      governance_type: 'core_self',
    });
    expect([executed.status, executed.body]).toEqual([200, { message: 'Action executed successfully' }]);
    for (const api of world.dpm) {
      expect((await stateOn(api, gov.partyId))?.action_confirmation_timeout_microseconds).toBe(
        43_200_000_000,
      );
      expect((await confirmationsOn(api, gov.partyId)).actions).toEqual([]);
    }

    const audit = await world.dpm[1]!.get<{
      entries: Array<Record<string, unknown>>;
      total_returned: number;
    }>(`/governance/audit?party_id=${gov.partyId}`);
    expect(audit.body.entries[0]).toMatchObject({
      event_type: 'confirm',
      party_id: gov.partyId,
      member_party_id: gov.members[1],
      governance_type: 'core_self',
      action_summary: 'governance_set_timeout',
      status: 'success',
    });
    const chain = await world.dpm[0]!.get<{ entries: Array<Record<string, unknown>> }>(
      `/governance/chain-audit?party_id=${gov.partyId}&refresh=true`,
    );
    const choices = chain.body.entries.map(
      (e) => `${String(e.event_type)}:${String(e.choice ?? e.action_summary)}`,
    );
    expect(choices).toContain('execute:GovernanceRules_ExecuteGovernanceAction');
    expect(choices.filter((c) => c === 'confirm:GovernanceRules_ConfirmGovernanceAction')).toHaveLength(2);
  });

  it('is refused with the participant’s CONTRACT_NOT_FOUND for a rules id a confirmation consumed, and nothing is created', async () => {
    const stale = await rulesId(world.dpm[0]!, gov.partyId);
    const other = { type: 'governance_add_additional_proposer', additional_proposer: tokens.holders[5] };
    expect((await confirm(world.dpm[1]!, gov.partyId, other)).status).toBe(200);
    const refused = await world.dpm[0]!.post<{ error: string }>('/governance/confirm', {
      party_id: gov.partyId,
      rules_contract_id: stale,
      action: other,
      governance_type: 'core_self',
    });
    expect(refused.status).toBe(500);
    expect(refused.body.error).toMatch(
      /^Failed to submit confirmation: status: NotFound, message: "CONTRACT_NOT_FOUND\(11,[0-9a-f]+\): /,
    );
    const pending = (await confirmationsOn(world.dpm[0]!, gov.partyId)).actions;
    expect(
      pending.find((a) => a.action['type'] === other.type)?.confirmations.map((c) => c.confirming_party),
    ).toEqual([gov.members[1]]);
    const audit = await world.dpm[0]!.get<{ entries: Array<Record<string, unknown>> }>(
      `/governance/audit?party_id=${gov.partyId}&limit=1`,
    );
    expect(audit.body.entries[0]).toMatchObject({ event_type: 'confirm', status: 'failed' });
  });

  it('is refused at execution below the threshold, by the ledger', async () => {
    const pending = (await confirmationsOn(world.dpm[0]!, gov.partyId)).actions.find(
      (a) => a.action['type'] === 'governance_add_additional_proposer',
    );
    const executed = await world.dpm[0]!.post<{ error: string }>('/governance/execute', {
      party_id: gov.partyId,
      rules_contract_id: await rulesId(world.dpm[0]!, gov.partyId),
      action: pending!.action,
      confirmation_cids: pending!.confirmations.map((c) => c.contract_id),
      governance_type: 'core_self',
    });
    expect(executed.status).toBe(500);
    expect(executed.body.error).toMatch(/Enough member confirmations to execute action/);
  });
});

describe('a domain proposal', () => {
  it('is proposed (with the proposer’s confirmation), confirmed by a second member, executed; the proposal is gone', async () => {
    const description = 'ratify the validator rotation';
    const proposed = await world.dpm[0]!.post('/governance/propose', {
      party_id: gov.partyId,
      rules_contract_id: await rulesId(world.dpm[0]!, gov.partyId),
      proposal: { type: 'generic_vote', description },
    });
    expect([proposed.status, proposed.body]).toEqual([200, { message: 'Proposal created and confirmed' }]);
    const [card] = (await confirmationsOn(world.dpm[1]!, gov.partyId)).domain_actions ?? [];
    expect(card).toMatchObject({
      action_label: 'GenericVote',
      description,
      confirmation_count: 1,
      can_execute: false,
      orphaned: false,
      proposer: gov.members[0],
    });
    const second = await confirm(
      world.dpm[1]!,
      gov.partyId,
      { type: 'governance_set_threshold', new_threshold: 0 },
      {
        governance_type: 'core_domain',
        proposal_cid: card!.proposal_cid,
      },
    );
    expect(second.status, second.text).toBe(200);
    const ready = (await confirmationsOn(world.dpm[2]!, gov.partyId)).domain_actions?.[0];
    expect(ready).toMatchObject({ confirmation_count: 2, can_execute: true });
    const executed = await world.dpm[2]!.post('/governance/execute', {
      party_id: gov.partyId,
      rules_contract_id: await rulesId(world.dpm[2]!, gov.partyId),
      action: { type: 'governance_set_threshold', new_threshold: 0 },
      confirmation_cids: ready!.confirmations.map((c) => c.contract_id),
      governance_type: 'core_domain',
      proposal_cid: card!.proposal_cid,
    });
    expect(executed.status, executed.text).toBe(200);
    expect((await confirmationsOn(world.dpm[0]!, gov.partyId)).domain_actions).toBeUndefined();
    const chain = await world.dpm[0]!.get<{ entries: Array<Record<string, unknown>> }>(
      `/governance/chain-audit?party_id=${gov.partyId}&refresh=true&limit=5`,
    );
    expect(chain.body.entries.map((e) => e.event_type)).toContain('execute_result');
  });
});

describe('mint requests of an instrument the party issues', () => {
  it('are listed, accepted through a proposal at the threshold, and mint the holding once', async () => {
    const holder = tokens.holders[0]!;
    const wallet = walletFor(world, tokens, holder);
    const instrument = { admin: gov.partyId, id: 'ALPHA' };
    const created = await wallet.submit([
      {
        CreateCommand: {
          templateId: MINT_REQUEST,
          createArguments: {
            operator: gov.partyId,
            provider: gov.partyId,
            registrar: gov.partyId,
            mint: {
              holder,
              amount: '2.5',
              instrumentId: instrument,
              executeBefore: isoIn(3_600_000),
              meta: { values: {} },
            },
          },
        },
      },
    ]);
    expect(created.status, created.text).toBe(200);
    const requests = await world.dpm[0]!.get<{ mint_requests: Array<Record<string, unknown>> }>(
      `/governance/mint-requests?party_id=${gov.partyId}`,
    );
    expect(requests.body.mint_requests).toEqual([
      expect.objectContaining({
        holder,
        amount: '2.5',
        instrument_admin: gov.partyId,
        instrument_id: 'ALPHA',
      }),
    ]);
    const requestCid = requests.body.mint_requests[0]!['contract_id'] as string;
    const instruments = await world.dpm[0]!.get<{
      instruments: Array<{ contract_id: string; instrument_id: string }>;
    }>(`/instruments?party_id=${gov.partyId}`);
    const configuration = instruments.body.instruments.find((i) => i.instrument_id === 'ALPHA')!.contract_id;
    const proposed = await world.dpm[1]!.post('/governance/propose', {
      party_id: gov.partyId,
      rules_contract_id: await rulesId(world.dpm[1]!, gov.partyId),
      proposal: {
        type: 'accept_mint_request',
        mint_request_cid: requestCid,
        instrument_configuration_cid: configuration,
        description: `accept mint request ${requestCid}`,
      },
    });
    expect(proposed.status, proposed.text).toBe(200);
    const card = (await confirmationsOn(world.dpm[2]!, gov.partyId)).domain_actions?.find(
      (a) => a.action_label === 'AcceptMintRequest',
    );
    expect(
      (
        await confirm(
          world.dpm[2]!,
          gov.partyId,
          { type: 'governance_set_threshold', new_threshold: 0 },
          {
            governance_type: 'core_domain',
            proposal_cid: card!.proposal_cid,
          },
        )
      ).status,
    ).toBe(200);
    const ready = (await confirmationsOn(world.dpm[2]!, gov.partyId)).domain_actions!.find(
      (a) => a.proposal_cid === card!.proposal_cid,
    )!;
    const executed = await world.dpm[2]!.post('/governance/execute', {
      party_id: gov.partyId,
      rules_contract_id: await rulesId(world.dpm[2]!, gov.partyId),
      action: { type: 'governance_set_threshold', new_threshold: 0 },
      confirmation_cids: ready.confirmations.map((c) => c.contract_id),
      governance_type: 'core_domain',
      proposal_cid: card!.proposal_cid,
    });
    expect(executed.status, executed.text).toBe(200);
    expect(await wallet.balance(instrument)).toBe('2.5000000000');
    const after = await world.dpm[0]!.get<{ mint_requests: unknown[] }>(
      `/governance/mint-requests?party_id=${gov.partyId}`,
    );
    expect(after.body.mint_requests).toEqual([]);
  });
});

describe('credentials and rights', () => {
  it('a write for a party the node has no credentials for answers 401; its reads answer nothing', async () => {
    const unknown = `nobody::1220${'ab'.repeat(32)}`;
    const refused = await world.dpm[0]!.post('/governance/confirm', {
      party_id: unknown,
      rules_contract_id: '00' + 'cd'.repeat(32),
      action: { type: 'governance_set_threshold', new_threshold: 2 },
    });
    expect([refused.status, refused.body]).toEqual([401, { error: 'No credentials configured for party' }]);
    expect(await stateOn(world.dpm[0]!, unknown)).toBeNull();
    const vaults = await world.dpm[0]!.get<{ error: string }>(`/vaults?party_id=${unknown}`);
    expect(vaults.status).toBe(500);
    expect(vaults.body.error).toMatch(/^Failed to fetch vaults: status: Unauthenticated, message: /);
  });

  it('/auth/status reports the rights the ledger user has, grant-rights grants them', async () => {
    const status = await world.dpm[0]!.get<{
      parties: Array<{ dec_party_id: string; rights?: Record<string, boolean> }>;
    }>('/auth/status');
    expect(status.body.parties.find((p) => p.dec_party_id === gov.partyId)?.rights).toEqual({
      member_party_act_as: true,
      member_party_read_as: true,
      dec_party_act_as: true,
      dec_party_read_as: true,
    });
    const wrongSecret = await world.dpm[0]!.post('/auth/grant-rights', {
      dec_party_id: gov.partyId,
      admin_client_id: 'ledgerbook-ci',
      admin_client_secret: 'not-the-secret',
    });
    expect([wrongSecret.status, wrongSecret.body]).toEqual([401, { error: 'Admin Keycloak auth failed' }]);
  });

  it('the caller log names whose credentials a node acted with for the party (api `party`)', async () => {
    await world.admin.call('DELETE', '/requests');
    const read = await world.dpm[1]!.get(`/governance/confirmations?party_id=${gov.partyId}`);
    expect(read.status, read.text).toBe(200);
    const refused = await world.dpm[2]!.post('/auth/grant-rights', {
      dec_party_id: gov.partyId,
      admin_client_id: 'ledgerbook-ci',
      admin_client_secret: 'not-the-secret',
    });
    expect(refused.status).toBe(401);
    const { body } = await world.admin.get<{ callers: Array<{ node: string; api: string; who: string }> }>(
      '/callers',
    );
    // node2 acted for the party with its saved client's token; node3 got the party's token, not the admin's
    expect(body.callers.filter((c) => c.api === 'party')).toEqual([
      { node: 'node2', api: 'party', who: 'service-account-ledgerbook-ci', count: 1 },
      { node: 'node3', api: 'party', who: 'service-account-ledgerbook-ci', count: 1 },
    ]);
    // the operators' own tokens, verified (the admin client's refusal is not the caller's)
    expect(body.callers.filter((c) => c.api === 'dpm').map((c) => [c.node, c.who])).toEqual([
      ['node2', 'operator2'],
      ['node3', 'operator3'],
    ]);
  });

  it('discover-member-party names the ledger user behind a login and its primary party', async () => {
    const keycloak = world.sandbox.urls.idp.issuer.replace(/\/realms\/[^/]+$/, '');
    const found = await world.dpm[1]!.post<{ user_id: string; primary_party?: string }>(
      '/party-config/discover-member-party',
      {
        keycloak_url: keycloak,
        keycloak_realm: 'ledgerbook',
        keycloak_client_id: 'ledgerbook-cli',
        keycloak_username: 'operator2',
        keycloak_password: world.passwordOf('operator2'),
      },
    );
    expect(found.status, found.text).toBe(200);
    expect(found.body.primary_party).toBe(operatorPartyOf(world, 1));
  });

  it('known-members: this node first, then each peer with the member party it configured', async () => {
    const known = await world.dpm[2]!.get<{
      members: Array<{ participant_uid: string; member_party_id?: string }>;
    }>(`/governance/known-members?party_id=${gov.partyId}`);
    expect(known.body.members[0]).toEqual({
      participant_uid: world.participant[2],
      member_party_id: gov.members[2],
    });
    expect(known.body.members.slice(1)).toEqual(
      expect.arrayContaining([
        { participant_uid: world.participant[0], member_party_id: gov.members[0] },
        { participant_uid: world.participant[1], member_party_id: gov.members[1] },
      ]),
    );
  });
});

describe('confirmations expire', () => {
  it('after the rules’ timeout: not counted, not executable, expired by a member, and confirmed again once', async () => {
    const w = await startWorld();
    try {
      const party = await governedParty(w, { prefix: 'brief', timeoutMicros: 10_000_000 });
      const action = { type: 'governance_set_threshold', new_threshold: 3 };
      expect((await confirm(w.dpm[0]!, party.partyId, action)).status).toBe(200);
      const expired = await waitFor(
        'the confirmation to expire',
        async () => {
          const [a] = (await confirmationsOn(w.dpm[1]!, party.partyId)).actions;
          return a?.confirmation_count === 0 ? a : undefined;
        },
        15_000,
        250,
      );
      expect(expired.confirmations).toHaveLength(1);
      // the count goes by whole seconds; the ledger's `now > expiresAt` by microseconds
      await new Promise((r) => setTimeout(r, 1000));
      const stale = expired.confirmations[0]!.contract_id;
      const gone = await w.dpm[1]!.post('/governance/expire', {
        party_id: party.partyId,
        rules_contract_id: await rulesId(w.dpm[1]!, party.partyId),
        confirmation_cid: stale,
        governance_type: 'core_self',
      });
      expect([gone.status, gone.body]).toEqual([200, { message: 'Confirmation expired successfully' }]);
      expect((await confirmationsOn(w.dpm[1]!, party.partyId)).actions).toEqual([]);
      expect((await confirm(w.dpm[0]!, party.partyId, action)).status).toBe(200);
      const [again] = (await confirmationsOn(w.dpm[1]!, party.partyId)).actions;
      expect(again).toMatchObject({ confirmation_count: 1, can_execute: false });
    } finally {
      await w.stop();
    }
  });
});

/**
 * The sandbox's DPM governance, auth and §12 routes against the reference (docs/reference/dpm-api.md §3, §4,
 * §9, §11, §12): each route is driven on a 3-node sandbox with a governed party (GovernanceRules on the ledger,
 * an instrument of its own) into a state where its answer carries what it can carry, then checked for the
 * status and content type, the client's wire schema, and the reference's fields one by one (dpm-reference.ts, the reference view of contracts/dpm.openapi.yaml). Then
 * the error answers with the reference's texts, and the faithfulness gaps the review found: field definitions
 * outside the reference's variants, every participant's own packages, a cancel during start-up, the API docs of
 * insecure mode. The routes this file covers are GOVERNANCE_TEST_ROUTES (dpm-coverage.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeResponseSchemas, routeSuccessStatus, type RouteKey } from '../../src/clients/dpm-wire.js';
import { wireProblems } from '../../src/clients/schema-check.js';
import { readDar } from '../../src/dar/read.js';
import {
  type Api,
  type Response,
  type World,
  bootstrapMesh,
  operatorPartyOf,
  startWorld,
  waitFor,
  waitForInvitation,
} from '@ledgerbook/sandbox/testing';
import {
  type GovernedParty,
  confirm,
  confirmationsOn,
  governedParty,
  rulesId,
} from '@ledgerbook/sandbox/testing';
import {
  type TokenWorld,
  CREDENTIAL_OFFER,
  USER_SERVICE,
  Registry,
  isoIn,
  tokenWorld,
  transfer,
  walletFor,
} from '@ledgerbook/sandbox/testing';
import { GOVERNANCE_TEST_ROUTES } from './dpm-coverage.js';
import { conform, responseOf } from './dpm-reference.js';

type Json = Record<string, unknown>;

const MINT_REQUEST = '#utility-registry-app-v0:Utility.Registry.App.V0.Model.Mint:MintRequest';
const BURN_REQUEST = '#utility-registry-app-v0:Utility.Registry.App.V0.Model.Burn:BurnRequest';
/** the placeholder `action` the server's UI sends with a domain proposal's confirm and execute */
const PLACEHOLDER = { type: 'governance_set_threshold', new_threshold: 0 };

const driven = new Set<RouteKey>();

function expectSuccess(route: RouteKey, response: Response): void {
  const schema = routeResponseSchemas[route];
  expect(schema, `${route} has a wire schema`).toBeDefined();
  expect(response.status, `${route}: ${response.text.slice(0, 400)}`).toBe(routeSuccessStatus[route] ?? 200);
  expect(response.contentType, route).toBe('application/json');
  expect(wireProblems(schema!, response.body), `${route} decodes with the wire schema`).toEqual([]);
  const { problems, extras } = conform(response.body, responseOf(route));
  expect(problems, `${route}: fields per the reference`).toEqual([]);
  expect(extras, `${route}: fields the reference does not document`).toEqual([]);
  driven.add(route);
}

function expectJsonError(response: Response, status: number, error: string | RegExp): void {
  expect(response.status, response.text.slice(0, 400)).toBe(status);
  expect(response.contentType).toBe('application/json');
  expect(conform(response.body, 'ErrorResponse')).toEqual({ problems: [], extras: [] });
  const text = (response.body as { error: string }).error;
  if (typeof error === 'string') expect(text).toBe(error);
  else expect(text).toMatch(error);
}

function expectTextError(response: Response, status: number, text: string | RegExp): void {
  expect(response.status, response.text).toBe(status);
  expect(response.contentType).toMatch(/^text\/plain\b/);
  if (typeof text === 'string') expect(response.text).toBe(text);
  else expect(response.text).toMatch(text);
}

/** list fields of an answer that must not be empty for the check to mean something */
function nonEmpty(response: Response, key: string): void {
  expect(
    (response.body as Record<string, unknown[]>)[key]?.length,
    `${key} of ${response.text}`,
  ).toBeGreaterThan(0);
}

let world: World;
let gov: GovernedParty;
let tokens: TokenWorld;
let node1: Api;
let node2: Api;
let node3: Api;
let keycloakUrl: string;
/** a party no node has credentials for */
const STRANGER = `stranger::1220${'ab'.repeat(32)}`;

/** party credentials for a world party on its own node: its §12 reads then show its contracts */
async function configureWorldParty(api: Api, party: string): Promise<void> {
  const response = await api.put('/party-config', {
    dec_party_id: party,
    member_party_id: party,
    user_id: 'service-account-ledgerbook-ci',
    keycloak_url: keycloakUrl,
    keycloak_realm: 'ledgerbook',
    keycloak_client_id: 'ledgerbook-ci',
    keycloak_client_secret: world.sandbox.secrets()['SANDBOX_CI_CLIENT_SECRET'],
  });
  expect(response.status, response.text).toBe(200);
}

async function executeReady(api: Api, proposalCid: string): Promise<Response> {
  const ready = (await confirmationsOn(api, gov.partyId)).domain_actions!.find(
    (a) => a.proposal_cid === proposalCid,
  )!;
  expect(ready.can_execute).toBe(true);
  return api.post('/governance/execute', {
    party_id: gov.partyId,
    rules_contract_id: await rulesId(api, gov.partyId),
    action: PLACEHOLDER,
    confirmation_cids: ready.confirmations.map((c) => c.contract_id),
    governance_type: 'core_domain',
    proposal_cid: proposalCid,
  });
}

async function proposalOf(api: Api, label: string, description: string): Promise<string> {
  const card = (await confirmationsOn(api, gov.partyId)).domain_actions?.find(
    (a) => a.action_label === label && a.description === description,
  );
  expect(card, `a ${label} proposal "${description}"`).toBeDefined();
  return card!.proposal_cid;
}

beforeAll(async () => {
  world = await startWorld();
  [node1, node2, node3] = world.dpm as [Api, Api, Api];
  keycloakUrl = world.sandbox.urls.idp.issuer.replace(/\/realms\/ledgerbook$/, '');
  gov = await governedParty(world, { instrument: 'ALPHA', timeoutMicros: 10_000_000 });
  tokens = await tokenWorld(world);
  await configureWorldParty(node1, tokens.minter);
  await configureWorldParty(node2, tokens.holders[0]!);
  await configureWorldParty(node2, tokens.preapproved);
});
afterAll(async () => world.stop());

describe('§11 governance writes and reads', () => {
  it('POST /governance/confirm (core_self): the confirmation, the rules contract consumed and re-created', async () => {
    const before = await rulesId(node1, gov.partyId);
    const response = await confirm(node1, gov.partyId, {
      type: 'governance_set_threshold',
      new_threshold: 3,
    });
    expectSuccess('POST /governance/confirm', response);
    expect(response.body).toEqual({ message: 'Confirmation submitted successfully' });
    expect(await rulesId(node1, gov.partyId)).not.toBe(before);
  });

  it('POST /governance/cancel (authenticated, not admin): the member withdraws its own confirmation', async () => {
    const [pending] = (await confirmationsOn(node1, gov.partyId)).actions;
    const response = await node1.call('POST', '/governance/cancel', {
      token: await world.token('viewer'),
      body: {
        party_id: gov.partyId,
        confirmation_cid: pending!.confirmations[0]!.contract_id,
        governance_type: 'core_self',
      },
    });
    expectSuccess('POST /governance/cancel', response);
    expect(response.body).toEqual({ message: 'Confirmation cancelled successfully' });
    expect((await confirmationsOn(node1, gov.partyId)).actions).toEqual([]);
  });

  it('POST /governance/propose, confirm (core_domain), execute: a generic vote carried', async () => {
    const proposed = await node1.post('/governance/propose', {
      party_id: gov.partyId,
      rules_contract_id: await rulesId(node1, gov.partyId),
      proposal: { type: 'generic_vote', description: 'adopt the runbook' },
    });
    expectSuccess('POST /governance/propose', proposed);
    expect(proposed.body).toEqual({ message: 'Proposal created and confirmed' });
    const cid = await proposalOf(node2, 'GenericVote', 'adopt the runbook');
    const confirmed = await confirm(node2, gov.partyId, PLACEHOLDER, {
      governance_type: 'core_domain',
      proposal_cid: cid,
    });
    expectSuccess('POST /governance/confirm', confirmed);
    const executed = await executeReady(node3, cid);
    expectSuccess('POST /governance/execute', executed);
    expect(executed.body).toEqual({ message: 'Action executed successfully' });
  });

  it('POST /governance/cancel-proposal: the proposer withdraws a proposal and its own confirmation', async () => {
    const proposed = await node2.post('/governance/propose', {
      party_id: gov.partyId,
      rules_contract_id: await rulesId(node2, gov.partyId),
      proposal: { type: 'generic_vote', description: 'to be withdrawn' },
    });
    expect(proposed.status, proposed.text).toBe(200);
    const cid = await proposalOf(node2, 'GenericVote', 'to be withdrawn');
    const card = (await confirmationsOn(node2, gov.partyId)).domain_actions!.find(
      (a) => a.proposal_cid === cid,
    )!;
    const response = await node2.post('/governance/cancel-proposal', {
      party_id: gov.partyId,
      proposal_cid: cid,
      confirmation_cid: card.confirmations[0]!.contract_id,
    });
    expectSuccess('POST /governance/cancel-proposal', response);
    expect(response.body).toEqual({ message: 'Proposal cancelled successfully' });
    expect((await confirmationsOn(node2, gov.partyId)).domain_actions ?? []).toEqual([]);
  });

  it('GET /governance/mint-requests and burn-requests: the holders’ open requests of the party’s instrument', async () => {
    const alice = walletFor(world, tokens, tokens.holders[0]!);
    const instrument = { admin: gov.partyId, id: 'ALPHA' };
    const request = (template: string, field: 'mint' | 'burn', payload: Json) =>
      alice.submit([
        {
          CreateCommand: {
            templateId: template,
            createArguments: {
              operator: gov.partyId,
              provider: gov.partyId,
              registrar: gov.partyId,
              [field]: {
                holder: alice.party,
                instrumentId: instrument,
                executeBefore: isoIn(3_600_000),
                meta: { values: {} },
                ...payload,
              },
            },
          },
        },
      ]);
    expect((await request(MINT_REQUEST, 'mint', { amount: '3' })).status).toBe(200);
    const mints = await node1.get<{ mint_requests: Json[] }>(
      `/governance/mint-requests?party_id=${gov.partyId}`,
    );
    expectSuccess('GET /governance/mint-requests', mints);
    nonEmpty(mints, 'mint_requests');

    // accept it, so that alice has something of the instrument to burn
    const config = (
      await node1.get<{ instruments: Array<{ contract_id: string }> }>(`/instruments?party_id=${gov.partyId}`)
    ).body.instruments[0]!.contract_id;
    const mintCid = String(mints.body.mint_requests[0]!['contract_id']);
    expect(
      (
        await node1.post('/governance/propose', {
          party_id: gov.partyId,
          rules_contract_id: await rulesId(node1, gov.partyId),
          proposal: {
            type: 'accept_mint_request',
            mint_request_cid: mintCid,
            instrument_configuration_cid: config,
            description: `mint ${mintCid}`,
          },
        })
      ).status,
    ).toBe(200);
    const cid = await proposalOf(node2, 'AcceptMintRequest', `mint ${mintCid}`);
    expect(
      (await confirm(node2, gov.partyId, PLACEHOLDER, { governance_type: 'core_domain', proposal_cid: cid }))
        .status,
    ).toBe(200);
    expect((await executeReady(node2, cid)).status).toBe(200);

    const holdings = await alice.holdings(instrument);
    expect(
      (
        await request(BURN_REQUEST, 'burn', {
          amount: '1',
          inputHoldingCids: holdings.map((h) => h.contractId),
        })
      ).status,
    ).toBe(200);
    const burns = await node3.get(`/governance/burn-requests?party_id=${gov.partyId}`);
    expectSuccess('GET /governance/burn-requests', burns);
    nonEmpty(burns, 'burn_requests');
  });

  it('GET /governance/transfer-instructions: an offer to the party, waiting for it', async () => {
    const alice = walletFor(world, tokens, tokens.holders[0]!);
    const registry = new Registry(world.sandbox.urls.registry, tokens.admin);
    const inputs = (await alice.holdings(tokens.instrument)).map((h) => h.contractId);
    const sent = await transfer(alice, registry, gov.partyId, '0.25', inputs);
    expect(sent.status, sent.text).toBe(200);
    expect(sent.transferKind).toBe('offer');
    const response = await node1.get(`/governance/transfer-instructions?party_id=${gov.partyId}`);
    expectSuccess('GET /governance/transfer-instructions', response);
    nonEmpty(response, 'transfer_instructions');
  });

  it('GET /governance/known-members: this node first, then each configured peer', async () => {
    const response = await node3.get<{ members: Json[] }>(
      `/governance/known-members?party_id=${gov.partyId}`,
    );
    expectSuccess('GET /governance/known-members', response);
    expect(response.body.members[0]).toEqual({
      participant_uid: world.participant[2],
      member_party_id: gov.members[2],
    });
  });

  it('GET /governance/audit: the node’s own writes, newest first, `limit` and `offset`', async () => {
    const response = await node1.get<{ entries: Json[]; total_returned: number }>(
      `/governance/audit?party_id=${gov.partyId}`,
    );
    expectSuccess('GET /governance/audit', response);
    nonEmpty(response, 'entries');
    expect(response.body.total_returned).toBe(response.body.entries.length);
    const ids = response.body.entries.map((e) => Number(e['id']));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const page = await node1.get<{ entries: Json[] }>(
      `/governance/audit?party_id=${gov.partyId}&limit=1&offset=1`,
    );
    expect(page.body.entries.map((e) => e['id'])).toEqual([ids[1]]);
  });

  it('GET /governance/chain-audit: the ledger’s governance events, newest first, paged at offset boundaries', async () => {
    const response = await node2.get<{ entries: Json[]; next_before_offset: number | null }>(
      `/governance/chain-audit?party_id=${gov.partyId}&refresh=true`,
    );
    expectSuccess('GET /governance/chain-audit', response);
    nonEmpty(response, 'entries');
    const types = new Set(response.body.entries.map((e) => e['event_type']));
    for (const t of ['propose', 'confirm', 'execute', 'cancel', 'execute_result']) expect(types).toContain(t);
    // the sandbox names the governance step (the published sample names the ledger event: the document allows both)
    const steps = ['propose', 'confirm', 'execute', 'expire', 'cancel', 'execute_result'];
    for (const t of types) expect(steps).toContain(t);
    const page = await node2.get<{ entries: Json[]; next_before_offset: number | null }>(
      `/governance/chain-audit?party_id=${gov.partyId}&refresh=true&limit=1`,
    );
    expectSuccess('GET /governance/chain-audit', page);
    expect(page.body.next_before_offset).toBe(page.body.entries.at(-1)!['offset']);
    const next = await node2.get<{ entries: Json[] }>(
      `/governance/chain-audit?party_id=${gov.partyId}&refresh=true&before_offset=${page.body.next_before_offset}`,
    );
    for (const e of next.body.entries)
      expect(Number(e['offset'])).toBeLessThan(page.body.next_before_offset!);
  });

  it('POST /governance/expire: a member expires a confirmation whose time passed', async () => {
    const action = { type: 'governance_add_additional_proposer', additional_proposer: tokens.holders[9] };
    expect((await confirm(node3, gov.partyId, action)).status).toBe(200);
    const cid = (await confirmationsOn(node3, gov.partyId)).actions.find(
      (a) => a.action['type'] === action.type,
    )!.confirmations[0]!.contract_id;
    const early = await node3.post('/governance/expire', {
      party_id: gov.partyId,
      rules_contract_id: await rulesId(node3, gov.partyId),
      confirmation_cid: cid,
      governance_type: 'core_self',
    });
    expectJsonError(early, 500, /^Failed to expire confirmation: .*has not expired yet/);
    await new Promise((r) => setTimeout(r, 11_000));
    const response = await node3.post('/governance/expire', {
      party_id: gov.partyId,
      rules_contract_id: await rulesId(node3, gov.partyId),
      confirmation_cid: cid,
      governance_type: 'core_self',
    });
    expectSuccess('POST /governance/expire', response);
    expect(response.body).toEqual({ message: 'Confirmation expired successfully' });
  }, 30_000);
});

describe('§9 grant-rights, §3 member-party discovery', () => {
  it('POST /auth/grant-rights: the four rights of the party’s ledger user', async () => {
    const response = await node2.post('/auth/grant-rights', {
      dec_party_id: gov.partyId,
      admin_client_id: 'ledgerbook-ci',
      admin_client_secret: world.sandbox.secrets()['SANDBOX_CI_CLIENT_SECRET'],
    });
    expectSuccess('POST /auth/grant-rights', response);
    expect(response.body).toEqual({
      rights: {
        member_party_act_as: true,
        member_party_read_as: true,
        dec_party_act_as: true,
        dec_party_read_as: true,
      },
    });
  });

  it('POST /party-config/discover-member-party: the ledger user behind a login', async () => {
    const response = await node3.post('/party-config/discover-member-party', {
      keycloak_url: keycloakUrl,
      keycloak_realm: 'ledgerbook',
      keycloak_client_id: 'ledgerbook-cli',
      keycloak_username: 'operator3',
      keycloak_password: world.passwordOf('operator3'),
    });
    expectSuccess('POST /party-config/discover-member-party', response);
    expect(response.body).toMatchObject({ primary_party: operatorPartyOf(world, 2) });
  });
});

describe('§4 external parties, §12 contracts, services and proxies', () => {
  const read = async (route: RouteKey, api: Api, party: string, list?: string, extra = '') => {
    const path = route.slice('GET '.length);
    const response = await api.get(`${path}?party_id=${party}${extra}`);
    expectSuccess(route, response);
    if (list !== undefined) nonEmpty(response, list);
    return response;
  };

  it('GET /external-parties: none (the tenant API is not simulated)', async () => {
    const response = await node1.get('/external-parties');
    expectSuccess('GET /external-parties', response);
  });

  it('the minter’s services, offers and credentials on node1', async () => {
    await read('GET /services/user', node1, tokens.minter, 'services');
    await read('GET /credential-offers', node1, tokens.minter, 'credential_offers');
    const minter = walletFor(world, tokens, tokens.minter);
    const service = (await minter.acs({ template: USER_SERVICE }))[0]!.contractEntry.JsActiveContract
      .createdEvent;
    const offer = (await minter.acs({ template: CREDENTIAL_OFFER }))[0]!.contractEntry.JsActiveContract
      .createdEvent;
    const accepted = await minter.submit([
      {
        ExerciseCommand: {
          templateId: USER_SERVICE,
          contractId: service.contractId,
          choice: 'UserService_AcceptFreeCredentialOffer',
          choiceArgument: { credentialOfferCid: offer.contractId },
        },
      },
    ]);
    expect(accepted.status, accepted.text).toBe(200);
    await read('GET /credentials', node1, tokens.minter, 'credentials');
    await read('GET /services/provider', node1, tokens.minter);
    await read('GET /services/registrar', node1, tokens.minter);
    await read('GET /registrar-service-requests', node1, tokens.minter);
    await read('GET /provider-configurations', node1, tokens.minter);
    await read('GET /vaults', node1, tokens.minter);
  });

  it('holdings, preapprovals, instruments, transfer factories, contracts', async () => {
    const holdings = await read('GET /holdings', node2, tokens.holders[0]!, 'holdings');
    expect((holdings.body as { holdings: Json[] }).holdings).toContainEqual(
      expect.objectContaining({ instrument_admin: tokens.admin, instrument_id: 'CBTC' }),
    );
    const preapprovals = await read('GET /transfer-preapprovals', node2, tokens.preapproved);
    expect(preapprovals.body).toEqual({ cc: 0, token: 1 });
    await read('GET /instruments', node1, gov.partyId, 'instruments');
    await read('GET /transfer-factories', node1, gov.partyId);
    await read(
      'GET /contracts/query',
      node1,
      gov.partyId,
      'contracts',
      '&package_id=%23governance-core&module_name=Governance.Rules&entity_name=GovernanceRules',
    );
    await read('GET /coupon-reassignment-delegation', node1, gov.partyId);
  });

  it('GET /network-info, GET /operator-info: the DSO and its AmuletRules, the node’s operator party', async () => {
    const network = await node1.get<{ amulet_rules_blob: string }>('/network-info');
    expectSuccess('GET /network-info', network);
    expect(network.body.amulet_rules_blob).not.toBe('');
    const operator = await node2.get('/operator-info');
    expectSuccess('GET /operator-info', operator);
    expect(operator.body).toEqual({ party_id: operatorPartyOf(world, 1) });
  });
});

describe('error answers', () => {
  it('writes for a party without credentials: 401 `No credentials configured for party`', async () => {
    const bodies: Array<[string, Json]> = [
      [
        '/governance/propose',
        { rules_contract_id: '00ab', proposal: { type: 'generic_vote', description: 'x' } },
      ],
      ['/governance/confirm', { rules_contract_id: '00ab', action: PLACEHOLDER }],
      ['/governance/execute', { rules_contract_id: '00ab', action: PLACEHOLDER, confirmation_cids: [] }],
      ['/governance/expire', { rules_contract_id: '00ab', confirmation_cid: '00cd' }],
      ['/governance/cancel', { confirmation_cid: '00cd' }],
      ['/governance/cancel-proposal', { proposal_cid: '00cd' }],
    ];
    for (const [path, body] of bodies)
      expectJsonError(
        await node1.post(path, { party_id: STRANGER, ...body }),
        401,
        'No credentials configured for party',
      );
    expectJsonError(
      await node1.get(`/coupon-reassignment-delegation?party_id=${STRANGER}`),
      401,
      'No credentials configured for party',
    );
  });

  it('reads the participant refuses: 500 `Failed to fetch …: <its error>`; the governance reads answer nothing', async () => {
    expectJsonError(
      await node1.get(`/holdings?party_id=${STRANGER}`),
      500,
      /^Failed to fetch holdings: status: Unauthenticated, message: "UNAUTHENTICATED\(6,[0-9a-f]+\): /,
    );
    expectJsonError(
      await node1.get(`/governance/mint-requests?party_id=${STRANGER}`),
      500,
      /^Failed to fetch mint requests: status: Unauthenticated/,
    );
    expectJsonError(
      await node1.get(`/governance/chain-audit?party_id=${STRANGER}`),
      500,
      /^Failed to query chain audit: status: Unauthenticated/,
    );
    expect((await node1.get(`/governance/state?party_id=${STRANGER}`)).body).toEqual({ state: null });
    expect((await node1.get(`/governance/confirmations?party_id=${STRANGER}`)).body).toEqual({
      actions: [],
      threshold: 2,
      gov_core_out_of_date: false,
    });
  });

  it('refusals of the ledger and the handler: 500 with the texts of §11, 400 for a proposal that does not validate', async () => {
    const stale = await rulesId(node1, gov.partyId);
    await confirm(node2, gov.partyId, { type: 'governance_set_threshold', new_threshold: 1 });
    expectJsonError(
      await node1.post('/governance/confirm', {
        party_id: gov.partyId,
        rules_contract_id: stale,
        action: { type: 'governance_set_threshold', new_threshold: 1 },
        governance_type: 'core_self',
      }),
      500,
      /^Failed to submit confirmation: status: NotFound, message: "CONTRACT_NOT_FOUND\(11,[0-9a-f]+\): /,
    );
    expectJsonError(
      await node1.post('/governance/confirm', {
        party_id: gov.partyId,
        rules_contract_id: await rulesId(node1, gov.partyId),
        action: { type: 'governance_set_threshold', new_threshold: 1 },
      }),
      500,
      /^Failed to submit confirmation: status: NotFound, message: "PACKAGE_NAMES_NOT_FOUND\(11,[0-9a-f]+\): .*bitsafe-vault-governance-v0-rc8/,
    );
    expectJsonError(
      await node1.post('/governance/confirm', {
        party_id: gov.partyId,
        rules_contract_id: await rulesId(node1, gov.partyId),
        action: PLACEHOLDER,
        governance_type: 'core_domain',
      }),
      500,
      'Failed to submit confirmation: proposal_cid required for core_domain confirm',
    );
    expectJsonError(
      await node1.post('/governance/execute', {
        party_id: gov.partyId,
        rules_contract_id: await rulesId(node1, gov.partyId),
        action: { type: 'governance_set_threshold', new_threshold: 1 },
        confirmation_cids: [],
        governance_type: 'core_self',
      }),
      500,
      /^Failed to execute action: .*Enough member confirmations to execute action/,
    );
    expectJsonError(
      await node1.post('/governance/cancel', {
        party_id: gov.partyId,
        confirmation_cid: '00' + 'ef'.repeat(32),
        governance_type: 'core_self',
      }),
      500,
      /^Failed to cancel confirmation: status: NotFound, message: "CONTRACT_NOT_FOUND/,
    );
    expectJsonError(
      await node1.post('/governance/cancel-proposal', {
        party_id: gov.partyId,
        proposal_cid: '00' + 'ef'.repeat(32),
      }),
      500,
      /^Failed to cancel proposal: status: NotFound/,
    );
    const proposal = (type: string, fields: Json) =>
      node1.post('/governance/propose', {
        party_id: gov.partyId,
        rules_contract_id: '00ab',
        proposal: { type, ...fields },
      });
    expectJsonError(
      await proposal('mint', {
        allocation_factory_cid: '00ab',
        instrument_id: { admin: gov.partyId, id: 'ALPHA' },
        instrument_configuration_cid: '00ab',
        recipient: gov.partyId,
        amount: '0',
        description: 'nothing',
      }),
      400,
      'amount must be strictly positive, got 0',
    );
    expectJsonError(
      await proposal('accept_transfer', { transfer_instruction_cid: '00ab' }),
      400,
      /^Failed to build proposal create arguments: accept_transfer proposals are not simulated/,
    );
  });

  it('bodies that do not decode: 400 text/plain at body parsing', async () => {
    expectTextError(
      await node1.post('/governance/confirm', {
        party_id: gov.partyId,
        rules_contract_id: '00ab',
        action: { type: 'governance_set_quorum', new_threshold: 1 },
      }),
      400,
      /^Json deserialize error: unknown variant `governance_set_quorum`, expected one of `governance_add_member`, .* at line 1 column \d+$/,
    );
    expectTextError(
      await node1.post('/governance/confirm', {
        party_id: gov.partyId,
        rules_contract_id: '00ab',
        action: PLACEHOLDER,
        governance_type: 'core',
      }),
      400,
      /^Json deserialize error: unknown variant `core`, expected one of `vault`, `core_self`, `core_domain` at line 1 column \d+$/,
    );
    expectTextError(
      await node1.post('/governance/propose', {
        party_id: gov.partyId,
        rules_contract_id: '00ab',
        proposal: { type: 'mint' },
      }),
      400,
      /^Json deserialize error: missing field `allocation_factory_cid` at line 1 column \d+$/,
    );
    expectTextError(await node1.get('/vaults'), 400, 'Query deserialize error: missing field `party_id`');
  });

  it('admin-gated writes refuse a caller without the role (403); cancel and the reads do not', async () => {
    const viewer = await world.token('viewer');
    for (const path of [
      '/governance/propose',
      '/governance/confirm',
      '/governance/execute',
      '/governance/expire',
      '/governance/cancel-proposal',
    ]) {
      const body =
        path === '/governance/propose'
          ? {
              party_id: gov.partyId,
              rules_contract_id: '00ab',
              proposal: { type: 'generic_vote', description: 'x' },
            }
          : path === '/governance/expire'
            ? { party_id: gov.partyId, rules_contract_id: '00ab', confirmation_cid: '00ab' }
            : path === '/governance/cancel-proposal'
              ? { party_id: gov.partyId, proposal_cid: '00ab' }
              : {
                  party_id: gov.partyId,
                  rules_contract_id: '00ab',
                  action: PLACEHOLDER,
                  confirmation_cids: [],
                };
      expectJsonError(
        await node1.call('POST', path, { token: viewer, body }),
        403,
        'missing required role: dpm-admin',
      );
    }
    for (const [path, body] of [
      ['/auth/grant-rights', { dec_party_id: gov.partyId, admin_client_id: 'a', admin_client_secret: 'b' }],
      ['/party-config/discover-member-party', {}],
    ] as const)
      expectJsonError(
        await node1.call('POST', path, { token: viewer, body }),
        403,
        'missing required role: dpm-admin',
      );
    const audit = await node1.call('GET', `/governance/audit?party_id=${gov.partyId}`, { token: viewer });
    expect(audit.status).toBe(200);
  });

  it('grant-rights and discovery: the texts of §9 and §3', async () => {
    const grant = (body: Json) => node1.post('/auth/grant-rights', body);
    expectJsonError(
      await grant({ dec_party_id: gov.partyId, admin_client_id: ' ', admin_client_secret: 'x' }),
      400,
      'admin_client_id and admin_client_secret are required',
    );
    expectJsonError(
      await grant({ dec_party_id: STRANGER, admin_client_id: 'ledgerbook-ci', admin_client_secret: 'x' }),
      404,
      `Party ${STRANGER} is not configured`,
    );
    expectJsonError(
      await grant({
        dec_party_id: gov.partyId,
        admin_client_id: 'ledgerbook-ci',
        admin_client_secret: 'wrong',
      }),
      401,
      'Admin Keycloak auth failed',
    );
    const discover = (body: Json) => node1.post('/party-config/discover-member-party', body);
    expectJsonError(
      await discover({ keycloak_realm: 'ledgerbook' }),
      400,
      'keycloak_url, keycloak_realm, and keycloak_client_id are required (or supply auth0_domain to use the Auth0 path)',
    );
    expectJsonError(
      await discover({
        keycloak_url: keycloakUrl,
        keycloak_realm: 'ledgerbook',
        keycloak_client_id: 'ledgerbook-cli',
      }),
      400,
      'Provide either keycloak_client_secret, keycloak_username + keycloak_password, or the auth0_* fields',
    );
    expectJsonError(
      await discover({
        keycloak_url: keycloakUrl,
        keycloak_realm: 'ledgerbook',
        keycloak_client_id: 'ledgerbook-cli',
        keycloak_username: 'operator1',
        keycloak_password: 'wrong',
      }),
      502,
      'Keycloak auth failed',
    );
    expectJsonError(
      await discover({ auth0_domain: 'tenant.example.com' }),
      400,
      'auth0_audience is required',
    );
  });
});

describe('faithfulness gaps the review found', () => {
  it('a contracts request with a field definition outside the reference’s variants is refused at body parsing (400)', async () => {
    const response = await node1.post('/contracts', {
      decentralized_party_id: gov.partyId,
      participant_ids: world.participant,
      participant_parties: gov.members,
      operator_party: gov.members[0],
      contracts: [
        {
          id: 'x',
          name: 'governance-core',
          package_id: '#governance-core',
          module_name: 'Governance.Rules',
          entity_name: 'GovernanceRules',
          fields: [{ type: 'decentralized_party' }, { type: 'members' }],
        },
      ],
    });
    expectTextError(
      response,
      400,
      /^Json deserialize error: unknown variant `members`, expected one of `decentralized_party`, `operator_party`, .*`none` at line 1 column \d+$/,
    );
    const workflows = await node1.get<{ runs: Array<{ kind: string; status: string }> }>('/workflows');
    expect(workflows.body.runs.filter((r) => r.kind === 'Contracts' && r.status === 'inprogress')).toEqual(
      [],
    );
  });

  it('every participant vets the platform’s own packages, which differ by Canton release: whole sets differ, a DAR’s packages do not', async () => {
    const vetted = await Promise.all(
      world.dpm.map(
        async (api) =>
          new Set(
            (await api.get<Array<{ package_id: string }>>('/packages/vetted')).body.map((p) => p.package_id),
          ),
      ),
    );
    const [a, b] = vetted as [Set<string>, Set<string>];
    expect(
      [...a].filter((id) => !b.has(id)).length + [...b].filter((id) => !a.has(id)).length,
    ).toBeGreaterThan(0);
    const dar = readDar(
      readFileSync(join(import.meta.dirname, '../../playbooks/dars/governance-core-0.2.0.dar')),
    );
    for (const set of vetted) for (const p of dar.packages) expect(set.has(p.packageId)).toBe(true);
    const names = (await node2.get<Array<{ package_name: string }>>('/packages/vetted')).body.map(
      (p) => p.package_name,
    );
    expect(names).toEqual(
      expect.arrayContaining(['daml-prim', 'daml-stdlib', 'canton-builtin-admin-workflow-ping']),
    );
  });

  it('a cancel during a run’s start-up answers 409 `<Kind> workflow is still initializing — try again in a moment`', async () => {
    const realistic = await startWorld({ profile: 'realistic' });
    try {
      await bootstrapMesh(realistic);
      const started = await realistic.dpm[0]!.post<{ instance_name: string }>('/onboarding', {
        party_id_prefix: 'slow',
        peer_ids: [realistic.participant[1]],
      });
      expect(started.status, started.text).toBe(202);
      await waitForInvitation(realistic.dpm[1]!, started.body.instance_name);
      expectJsonError(
        await realistic.dpm[0]!.post(`/workflows/${started.body.instance_name}/cancel`),
        409,
        'Onboarding workflow is still initializing — try again in a moment',
      );
      expectJsonError(
        await realistic.dpm[0]!.post('/onboarding/cancel'),
        409,
        'Onboarding workflow is still initializing — try again in a moment',
      );
      const cancelled = await waitFor(
        'the run to leave its start-up',
        async () => {
          const r = await realistic.dpm[0]!.post(`/workflows/${started.body.instance_name}/cancel`);
          return r.text.includes('still initializing') ? undefined : r;
        },
        10_000,
        100,
      );
      expect(cancelled.body).toEqual({ message: 'Onboarding workflow cancelled' });
    } finally {
      await realistic.stop();
    }
  }, 30_000);

  it('insecure mode serves /swagger-ui/ and /api-docs/openapi.json; JWT mode answers them with the web UI', async () => {
    const insecure = await startWorld({ insecure: true, nodes: 1 });
    try {
      const ui = await insecure.dpm[0]!.call('GET', '/swagger-ui/', { token: null });
      expect(ui.status).toBe(200);
      expect(ui.text).toContain('/api-docs/openapi.json');
      const doc = await insecure.dpm[0]!.call<{
        openapi: string;
        paths: Record<string, Record<string, { tags: string[] }>>;
      }>('GET', '/api-docs/openapi.json', { token: null });
      expect(doc.status).toBe(200);
      expect(doc.body.openapi).toMatch(/^3\./);
      expect(doc.body.paths['/governance/confirm']?.['post']?.tags).toEqual(['Governance']);
      expect(doc.body.paths['/workflows/{instance_name}/cancel']?.['post']?.tags).toEqual(['Workflows']);
    } finally {
      await insecure.stop();
    }
    const page = await node1.call('GET', '/api-docs/openapi.json', { token: null });
    expect(page.status).toBe(200);
    expect(page.contentType).toMatch(/^text\/html\b/);
  });
});

describe('coverage', () => {
  it('every route of GOVERNANCE_TEST_ROUTES was driven to its success answer', () => {
    expect(GOVERNANCE_TEST_ROUTES.filter((r) => !driven.has(r))).toEqual([]);
  });
});

/**
 * The client factory: steps ask for clients by name; each uses the target's URLs and the right credentials (a
 * party's own, else its node's, else the target's), tokens come from a real identity provider (the sandbox's, over
 * HTTP) and every one reaches the masker; a service the target does not name is an error naming the key to add.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeService } from '../../test/clients/fake-service.js';
import { ADMIN, ALICE, BOB, holdingEntry } from '../../test/clients/ledger-bodies.js';
import { StepError } from '../errors.js';
import type { Target } from '../playbook/target.js';
// The sandbox's identity provider, reached over HTTP only.
import { sandboxRealm, startIdp, type IdpHandle } from '@ledgerbook/sandbox/testing';
import { createClients, offlineClients } from './factory.js';
import { ReadCache } from './read-cache.js';

const PASSWORD = 'pw-factory-Zr42-secret';
const CLIENT_SECRET = 'cs-factory-Lm93-secret';

let idp: IdpHandle;
let fake: FakeService;

beforeAll(async () => {
  idp = await startIdp({
    ...sandboxRealm(2, { password: PASSWORD, clientSecret: CLIENT_SECRET }),
    accessTokenTtlSeconds: 300,
  });
  fake = await FakeService.start();
});
afterAll(async () => {
  await fake.close();
  await idp.close();
});
beforeEach(() => fake.reset());

function target(overrides: Partial<Target> = {}): Target {
  const operator = (n: number) => ({
    issuer: idp.issuer,
    clientId: 'ledgerbook-cli',
    grant: 'password' as const,
    username: `operator${n}`,
    password: { secret: 'OPERATOR_PASSWORD' },
  });
  return {
    file: undefined,
    name: 'unit',
    network: 'devnet',
    auth: operator(1),
    nodes: {
      node1: {
        participantId: `node1::1220${'a1'.repeat(32)}`,
        dpm: fake.url,
        ledger: `${fake.url}/node1`,
      },
      node2: { participantId: `node2::1220${'b2'.repeat(32)}`, dpm: fake.url },
    },
    services: {
      registry: `${fake.url}/reg`,
      gateway: `${fake.url}/gw`,
      rewards: `${fake.url}/rw`,
      faucet: `${fake.url}/fc`,
      bitcoin: `${fake.url}/btc`,
    },
    instrument: { admin: ADMIN, id: 'CBTC' },
    parties: {
      alice: { party: ALICE, node: 'node1' },
      bob: {
        party: BOB,
        node: 'node1',
        auth: {
          issuer: idp.issuer,
          clientId: 'ledgerbook-ci',
          grant: 'client_credentials',
          clientSecret: { secret: 'CI_SECRET' },
        },
      },
      registrar: ADMIN,
    },
    ...overrides,
  };
}

const secrets = { OPERATOR_PASSWORD: PASSWORD, CI_SECRET: CLIENT_SECRET };

function thrown(run: () => unknown): StepError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(StepError);
    return error as StepError;
  }
  throw new Error('expected an error');
}

describe('createClients', () => {
  it('a node’s ledger and a party acting through it with the node’s credentials, or with its own', async () => {
    const tokens: string[] = [];
    const clients = createClients({
      target: target(),
      secrets,
      onToken: (t) => tokens.push(t),
      timeoutMs: 5000,
      // no snapshot is reused: alice's read asks for the ledger end itself, with the node's token
      reads: new ReadCache({ maxAgeMs: 0 }),
    });
    try {
      fake.on('GET', '/node1/v2/state/ledger-end', { body: { offset: 12 } });
      fake.onWebSocket('/node1/v2/state/active-contracts', { frames: [holdingEntry({ amount: '2' })] });
      expect(await clients.ledger('node1').ledgerEnd()).toBe(12);
      const alice = clients.party('alice');
      expect(alice.party).toBe(ALICE);
      expect(alice.ledger).toBe(clients.ledger('node1'));
      expect((await alice.holdings({ admin: ADMIN, id: 'CBTC' })).unlockedTotal).toBe('2');
      const bob = clients.party('bob');
      expect(bob.ledger.service).toBe('ledger:node1 as bob');
      await bob.ledger.ledgerEnd();

      const bearer = fake.requests.map((r) => String(r.headers.authorization).replace('Bearer ', ''));
      expect(bearer[1]).toBe(bearer[0]);
      expect(decodeJwt(bearer[0] ?? '').azp).toBe('ledgerbook-cli');
      expect(decodeJwt(bearer[2] ?? '').azp).toBe('ledgerbook-ci');
      // the WebSocket carried the node's token, and the masker saw every token used
      expect(fake.wsRequests[0]?.protocols[0]).toBe(`jwt.token.${bearer[0]}`);
      expect(new Set(tokens)).toEqual(new Set(bearer));
    } finally {
      await clients.close();
    }
  });

  it('the registry of the instrument admin and the plain services at their URLs, unauthenticated', async () => {
    const clients = createClients({ target: target(), secrets, onToken: () => undefined, timeoutMs: 5000 });
    try {
      fake
        .on('GET', `/reg/api/token-standard/v0/registrars/${ADMIN}/registry/metadata/v1/info`, {
          body: { adminId: ADMIN, supportedApis: {} },
        })
        .on('GET', '/gw/wrapped/v1/account-contract-rules', {
          body: {
            da_rules: { contract_id: '01', template_id: 'p:M:T', created_event_blob: 'b' },
            wa_rules: { contract_id: '02', template_id: 'p:M:T', created_event_blob: 'b' },
          },
        })
        .on('POST', '/fc/api/faucet', { body: { success: true, message: 'ok' } })
        .on('POST', '/rw/api/v1/analytics/daily-rewards', { body: { success: true, data: {} } })
        .on('GET', /^\/btc\/deposits\//, { status: 404, body: { error: 'unknown' } });
      expect((await clients.registry().info()).adminId).toBe(ADMIN);
      expect(clients.registry().admin).toBe(ADMIN);
      await clients.gateway().accountContractRules();
      await clients.faucet().request({ network: 'devnet', recipientParty: ALICE, amount: '1' });
      await clients
        .rewards()
        .dailyRewards({ parties: [ALICE], startDate: '2026-03-01', endDate: '2026-03-02' });
      expect(await clients.bitcoin().status('ab')).toBeUndefined();
      expect(fake.requests.every((r) => r.headers.authorization === undefined)).toBe(true);
    } finally {
      await clients.close();
    }
  });

  it('names the key to add for what the target does not configure', () => {
    const bare = target({ services: {}, instrument: undefined });
    const clients = createClients({ target: bare, secrets, onToken: () => undefined });
    for (const name of ['gateway', 'rewards', 'faucet', 'bitcoin'] as const) {
      expect(thrown(() => clients[name]()).hint).toBe(`add services.${name} (its base URL) to the target`);
    }
    expect(thrown(() => clients.registry()).hint).toMatch(/add instrument: \{admin/);
    expect(thrown(() => clients.ledger('node2')).hint).toBe(
      "add nodes.node2.ledger (the base URL of its participant's JSON Ledger API) to the target",
    );
    expect(thrown(() => clients.ledger('node9')).message).toBe("the target has no node 'node9'");
    expect(thrown(() => clients.party('carol')).hint).toMatch(/add parties\.carol: \{party/);
    const plain = thrown(() => clients.party('registrar'));
    expect(plain.message).toMatch(/cannot act as it/);
    expect(plain.hint).toContain(`parties.registrar: {party: ${ADMIN}, node:`);
    void clients.close();
  });

  it('offline clients refuse every service (for unit tests of steps)', async () => {
    const offline = offlineClients();
    expect(() => offline.ledger('node1')).toThrow(StepError);
    expect(() => offline.party('alice')).toThrow(/no party client/);
    await expect(offline.http.get('http://127.0.0.1:1/')).rejects.toBeInstanceOf(StepError);
  });
});

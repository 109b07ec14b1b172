/**
 * The token faults of wrapped-api.md §10.6, injected through the admin API, each with what a client sees: stale
 * contract ids, contention, overload, services refusing connections or hanging, gateway 5xx, stalled
 * confirmations, late burns, legacy withdraw requests, slow rewards, fewer attestors, faucet refusals, expired
 * access tokens, inactive refresh tokens. And the admin request counters of every new listener.
 */
import { Decimal } from 'decimal.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Api, startWorld, waitFor, type World } from '../testing/helpers.js';
import {
  Gateway,
  Registry,
  WITHDRAW_REQUEST,
  burn,
  createDepositAccount,
  createWithdrawAccount,
  minterCredential,
  tokenWorld,
  transfer,
  walletFor,
  type TokenWorld,
} from '../testing/token-helpers.js';

let world: World;
let tokens: TokenWorld;
let registry: Registry;
let gateway: Gateway;

beforeAll(async () => {
  world = await startWorld();
  tokens = await tokenWorld(world);
  registry = new Registry(world.sandbox.urls.registry, tokens.admin);
  gateway = new Gateway(world.sandbox.urls.gateway);
});
afterAll(async () => world?.stop());
afterEach(async () => {
  await world.admin.call('DELETE', '/faults');
});

async function fault(spec: Record<string, unknown>): Promise<void> {
  const response = await world.admin.post('/faults', spec);
  expect(response.status, response.text).toBe(201);
}

describe('ledger faults', () => {
  it('stale contract ids: the inputs were re-created under new ids → 404; re-query and rebuild succeeds', async () => {
    const minter = walletFor(world, tokens, tokens.minter);
    const balance = await minter.balance(tokens.instrument);
    const inputs = (await minter.holdings(tokens.instrument)).map((h) => h.contractId);
    await fault({ kind: 'stale-contracts', node: 'node1', count: 1 });
    const stale = await transfer(minter, registry, tokens.holders[40]!, '0.01', inputs);
    expect(stale.status).toBe(404);
    expect(stale.body).toMatchObject({ code: 'CONTRACT_NOT_FOUND' });
    const fresh = (await minter.holdings(tokens.instrument)).map((h) => h.contractId);
    expect(fresh).not.toEqual(inputs);
    expect(await minter.balance(tokens.instrument)).toBe(balance);
    expect((await transfer(minter, registry, tokens.holders[40]!, '0.01', fresh)).status).toBe(200);
  });

  it('contention (409 ABORTED) and overload (409 PARTICIPANT_BACKPRESSURE, category 2) change nothing', async () => {
    const minter = walletFor(world, tokens, tokens.minter);
    const balance = await minter.balance(tokens.instrument);
    const inputs = (await minter.holdings(tokens.instrument)).map((h) => h.contractId);
    await fault({ kind: 'contention', node: 'node1', count: 1 });
    const contended = await transfer(minter, registry, tokens.holders[41]!, '0.01', inputs);
    expect(contended.status).toBe(409);
    expect(contended.body).toMatchObject({ code: 'LOCAL_VERDICT_LOCKED_CONTRACTS', errorCategory: 2 });
    await fault({ kind: 'overload', count: 1 });
    const overloaded = await transfer(minter, registry, tokens.holders[41]!, '0.01', inputs);
    expect(overloaded.status).toBe(409);
    expect(overloaded.body).toMatchObject({
      code: 'PARTICIPANT_BACKPRESSURE',
      errorCategory: 2,
      grpcCodeValue: 10,
      retryInfo: '1 second',
    });
    expect(await minter.balance(tokens.instrument)).toBe(balance);
    expect((await transfer(minter, registry, tokens.holders[41]!, '0.01', inputs)).status).toBe(200);
  });

  it('an expired token mid-run: 401 on the ledger, then a new token works', async () => {
    await fault({ kind: 'expire-tokens', node: 'node2', count: 1 });
    const alice = walletFor(world, tokens, tokens.holders[0]!);
    await expect(alice.ledgerEnd()).rejects.toThrow(/ledger-end 401/);
    expect(await alice.ledgerEnd()).toBeGreaterThan(0);
  });

  it('an inactive refresh token: the identity provider answers invalid_grant "Token is not active"', async () => {
    const form = (body: Record<string, string>) =>
      fetch(world.sandbox.urls.idp.tokenUrl, { method: 'POST', body: new URLSearchParams(body) }).then(
        async (r) => ({
          status: r.status,
          body: (await r.json()) as Record<string, unknown>,
        }),
      );
    const login = await form({
      grant_type: 'password',
      client_id: 'ledgerbook-cli',
      username: 'operator1',
      password: world.password,
    });
    await fault({ kind: 'refresh-inactive', count: 1 });
    const refresh = {
      grant_type: 'refresh_token',
      client_id: 'ledgerbook-cli',
      refresh_token: String(login.body.refresh_token),
    };
    expect(await form(refresh)).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Token is not active' },
    });
    expect((await form(refresh)).status).toBe(200);
  });
});

describe('service faults', () => {
  it('a registry that refuses connections, then comes back when the fault is cleared', async () => {
    await fault({ kind: 'service-down', service: 'registry' });
    await waitFor('the registry to refuse', async () => {
      const failed = await fetch(
        `${world.sandbox.urls.registry}/api/token-standard/v0/registrars/${tokens.admin}/registry/metadata/v1/info`,
      ).then(
        () => false,
        () => true,
      );
      return failed || undefined;
    });
    await world.admin.call('DELETE', '/faults');
    await waitFor('the registry to answer again', async () =>
      (await registry.api.get('/metadata/v1/info')).status === 200 ? true : undefined,
    );
  });

  it('a registry that hangs: the client’s own timeout is what ends the call', async () => {
    await fault({ kind: 'service-down', service: 'registry', mode: 'hang' });
    const started = Date.now();
    await expect(
      fetch(
        `${world.sandbox.urls.registry}/api/token-standard/v0/registrars/${tokens.admin}/registry/metadata/v1/info`,
        { signal: AbortSignal.timeout(400) },
      ),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeGreaterThanOrEqual(380);
  });

  it('gateway 5xx (http-error on the gateway service), then 200', async () => {
    await fault({ kind: 'http-error', service: 'gateway', status: 503, count: 1 });
    expect((await gateway.api.get('/wrapped/v1/account-contract-rules')).status).toBe(503);
    expect((await gateway.api.get('/wrapped/v1/account-contract-rules')).status).toBe(200);
  });

  it('fewer attestors answering for an address; the faucet and the rewards refusing; slow rewards', async () => {
    const minter = walletFor(world, tokens, tokens.minter);
    const account = await createDepositAccount(minter, gateway, await minterCredential(minter));
    await fault({ kind: 'attestors-partial', responded: 2 });
    expect(await gateway.address(account.id)).toMatchObject({
      attestors_requested: 3,
      attestors_responded: 2,
    });
    await fault({ kind: 'service-refuses', service: 'faucet', message: 'the faucet is empty', count: 1 });
    const faucet = new Api(world.sandbox.urls.faucet, () => Promise.resolve(undefined));
    const refused = await faucet.post('/api/faucet', {
      network: 'devnet',
      recipient_party: tokens.holders[42],
      amount: '1',
    });
    expect(refused.body).toEqual({ success: false, message: 'the faucet is empty' });
    const rewards = new Api(world.sandbox.urls.rewards, () => Promise.resolve(undefined));
    const today = new Date().toISOString().slice(0, 10);
    await fault({ kind: 'service-refuses', service: 'rewards', count: 1 });
    const failed = await rewards.post<{ success: boolean }>('/api/v1/analytics/daily-rewards', {
      parties: [tokens.minter],
      start_date: today,
      end_date: today,
    });
    expect(failed.status).toBe(500);
    expect(failed.body.success).toBe(false);
    await fault({ kind: 'slow-rewards', ms: 500 });
    const started = Date.now();
    const slow = await rewards.post<{ success: boolean }>('/api/v1/analytics/daily-rewards', {
      parties: [tokens.minter],
      start_date: today,
      end_date: today,
    });
    expect(slow.body.success).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(480);
  });
});

describe('chain and attestor faults', () => {
  it('stalled confirmations: no blocks, no mint, no false success; the mint follows once the chain moves', async () => {
    const minter = walletFor(world, tokens, tokens.minter);
    const account = await createDepositAccount(minter, gateway, await minterCredential(minter));
    const { bitcoin_address: address } = await gateway.address(account.id);
    const bitcoin = new Api(world.sandbox.urls.bitcoin, () => Promise.resolve(undefined));
    await fault({ kind: 'stall-chain' });
    const before = await minter.balance(tokens.instrument);
    const sent = await bitcoin.post<{ txid: string }>('/send', { address, amount: '0.2' });
    const height = (await bitcoin.get<{ height: number; stalled: boolean }>('/status')).body;
    expect(height.stalled).toBe(true);
    expect((await bitcoin.post('/mine', { blocks: 10 })).status).toBe(409);
    await new Promise((r) => setTimeout(r, 2000));
    expect((await bitcoin.get<{ height: number }>('/status')).body.height).toBe(height.height);
    expect(
      (await bitcoin.get<{ confirmations: number; status: string }>(`/deposits/${sent.body.txid}`)).body,
    ).toMatchObject({
      confirmations: 0,
      status: 'pending',
    });
    expect(await minter.balance(tokens.instrument)).toBe(before);
    await world.admin.call('DELETE', '/faults');
    await waitFor(
      'the mint after the stall',
      async () =>
        (await minter.balance(tokens.instrument)) === new Decimal(before).plus('0.2').toFixed(10)
          ? true
          : undefined,
      15_000,
      50,
    );
  });

  it('late burns keep the pending balance; legacy withdraw requests carry btcTxId null', async () => {
    const minter = walletFor(world, tokens, tokens.minter);
    const credential = await minterCredential(minter);
    const account = await createWithdrawAccount(
      minter,
      gateway,
      credential,
      'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
    );
    await fault({ kind: 'late-burns' });
    await fault({ kind: 'legacy-withdraw-requests' });
    const holdings = await minter.holdings(tokens.instrument);
    const burned = await burn(
      minter,
      gateway,
      account,
      holdings.map((h) => h.contractId),
      '0.1',
      credential,
    );
    expect(burned.status, burned.text).toBe(200);
    await new Promise((r) => setTimeout(r, 1000));
    const requests = async () =>
      (await minter.acs({ template: WITHDRAW_REQUEST }))
        .map((e) => e.contractEntry.JsActiveContract.createdEvent.createArgument)
        .filter(
          (a) =>
            a?.destinationBtcAddress === 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7',
        );
    expect(await requests()).toEqual([]);
    const late = (
      await world.admin.get<{ faults: Array<{ id: string; kind: string }> }>('/faults')
    ).body.faults.find((f) => f.kind === 'late-burns')!;
    await world.admin.call('DELETE', `/faults/${late.id}`);
    const [request] = await waitFor(
      'the withdraw request',
      async () => {
        const found = await requests();
        return found.length > 0 ? found : undefined;
      },
      10_000,
      50,
    );
    expect(request).toMatchObject({ amount: '0.1000000000', btcTxId: null });
  });
});

describe('admin request counters', () => {
  it('count the token services’ and the WebSocket requests too', async () => {
    await world.admin.call('DELETE', '/requests');
    const alice = walletFor(world, tokens, tokens.holders[0]!);
    await alice.acsWs({ interface: '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding' });
    await registry.api.get('/metadata/v1/info');
    await gateway.api.get('/wrapped/v1/account-contract-rules');
    await new Api(world.sandbox.urls.rewards, () => Promise.resolve(undefined)).get('/health');
    await new Api(world.sandbox.urls.bitcoin, () => Promise.resolve(undefined)).get('/status');
    const counts = (
      await world.admin.get<{
        requests: Array<{ node: string; method: string; route: string; count: number }>;
      }>('/requests')
    ).body.requests;
    expect(counts).toEqual(
      expect.arrayContaining([
        { node: 'node2', method: 'WS', route: '/v2/state/active-contracts', count: 1 },
        { node: 'node2', method: 'GET', route: '/v2/state/ledger-end', count: 1 },
        {
          node: 'registry',
          method: 'GET',
          route: '/api/token-standard/v0/registrars/{admin}/registry/metadata/v1/info',
          count: 1,
        },
        { node: 'gateway', method: 'GET', route: '/wrapped/v1/account-contract-rules', count: 1 },
        { node: 'rewards', method: 'GET', route: '/health', count: 1 },
        { node: 'bitcoin', method: 'GET', route: '/status', count: 1 },
      ]),
    );
  });
});

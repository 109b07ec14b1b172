/**
 * The reads a run shares (read-cache.ts), through LedgerClient against a loopback server: what is asked of the
 * participant and what is answered from the run's reads, and what makes the next read ask again.
 */
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeService } from '../../test/clients/fake-service.js';
import { ALICE, IDS, createdEvent, holdingEntry, transaction } from '../../test/clients/ledger-bodies.js';
import { HttpService } from './http.js';
import { LedgerClient } from './ledger.js';
import type { ContractFilter } from './ledger-request.js';
import { ReadCache } from './read-cache.js';

let fake: FakeService;
const agent = new Agent();

beforeAll(async () => {
  fake = await FakeService.start();
});
afterAll(async () => {
  await fake.close();
  await agent.close();
});
beforeEach(() => fake.reset());

/** A clock the test moves by hand. */
function clock(): { now: () => number; advance: (ms: number) => void } {
  let t = 0;
  return { now: () => t, advance: (ms) => (t += ms) };
}

function client(reads: ReadCache, service = 'ledger:node1'): LedgerClient {
  return new LedgerClient(
    new HttpService({ service, baseUrl: fake.url, dispatcher: agent, timeoutMs: 5000 }),
    {
      dispatcher: agent,
      reads,
    },
  );
}

const HOLDINGS: ContractFilter = {
  interfaceId: '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding',
};
const ACCOUNTS: ContractFilter = { templateId: '#cbtc:CBTC.DepositAccount:CBTCDepositAccount' };

function ledgerAt(offset: number): void {
  fake.on('GET', '/v2/state/ledger-end', { body: { offset } });
}

const CREATE = { CreateCommand: { templateId: IDS.registryHolding, createArguments: {} } };

const paths = (): string[] => fake.requests.map((r) => `${r.method} ${r.path}`);

async function holdings(ledger: LedgerClient, filter = HOLDINGS): Promise<string[]> {
  const { contracts } = await ledger.activeContracts(
    { parties: [ALICE], filters: [filter] },
    { transport: 'http' },
  );
  return contracts.map((c) => c.createdEvent.contractId);
}

describe('reads shared within a run', () => {
  it('one ledger end serves every query; a query answered at that offset is answered again without a request', async () => {
    const time = clock();
    const reads = new ReadCache({ now: time.now });
    const ledger = client(reads);
    ledgerAt(700);
    const held = holdingEntry({ amount: '1', contractId: '00aa' });
    fake.on('POST', '/v2/state/active-contracts', { body: [held] });

    expect(await holdings(ledger)).toEqual(['00aa']);
    expect(await holdings(ledger, ACCOUNTS)).toEqual(['00aa']);
    time.advance(500);
    expect(await holdings(ledger)).toEqual(['00aa']);
    // streamed to a visitor as well as listed
    const visited: string[] = [];
    await ledger.activeContracts(
      { parties: [ALICE], filters: [HOLDINGS] },
      { onContract: (c) => visited.push(c.createdEvent.contractId) },
    );
    expect(visited).toEqual(['00aa']);
    expect(paths()).toEqual([
      'GET /v2/state/ledger-end',
      'POST /v2/state/active-contracts',
      'POST /v2/state/active-contracts',
    ]);
  });

  it('a submission of the run, answered or failed, makes the next read ask for the ledger end again', async () => {
    const reads = new ReadCache({ now: clock().now });
    const ledger = client(reads);
    ledgerAt(700);
    fake.on('POST', '/v2/state/active-contracts', { body: [] });
    await holdings(ledger);

    fake.on('POST', '/v2/commands/submit-and-wait-for-transaction', {
      body: { transaction: transaction([]) },
    });
    await ledger.submitAndWaitForTransaction({
      commandId: 'c-1',
      actAs: [ALICE],
      commands: [CREATE],
    });
    ledgerAt(701);
    await holdings(ledger);

    fake.on('POST', '/v2/commands/submit-and-wait-for-transaction', { status: 409, body: { code: 'X' } });
    await expect(
      ledger.submitAndWaitForTransaction({
        commandId: 'c-2',
        actAs: [ALICE],
        commands: [CREATE],
      }),
    ).rejects.toThrow();
    await holdings(ledger);

    const sent = fake.requests.filter((r) => r.path !== '/v2/commands/submit-and-wait-for-transaction');
    expect(sent.map((r) => r.path)).toEqual([
      '/v2/state/ledger-end',
      '/v2/state/active-contracts',
      '/v2/state/ledger-end',
      '/v2/state/active-contracts',
      '/v2/state/ledger-end',
    ]);
    // the last read found the ledger end still at 701: the answer kept for that offset served it
  });

  it('a snapshot older than its maximum age is not used; a newer ledger end read meanwhile moves it on', async () => {
    const time = clock();
    const reads = new ReadCache({ now: time.now, maxAgeMs: 1000 });
    const ledger = client(reads);
    ledgerAt(700);
    fake.on('POST', '/v2/state/active-contracts', { body: [] });
    await holdings(ledger);
    time.advance(1000);
    ledgerAt(705);
    await holdings(ledger);
    ledgerAt(709);
    expect(await ledger.ledgerEnd()).toBe(709);
    await holdings(ledger, ACCOUNTS);

    const offsets = fake.requests
      .filter((r) => r.path === '/v2/state/active-contracts')
      .map((r) => (r.body as { activeAtOffset: number }).activeAtOffset);
    expect(offsets).toEqual([700, 705, 709]);
    expect(paths().filter((p) => p.endsWith('ledger-end'))).toHaveLength(3);
  });

  it('big answers are not kept; another reader or other parties are asked on their own', async () => {
    const reads = new ReadCache({ now: clock().now, maxContracts: 1 });
    const ledger = client(reads);
    ledgerAt(700);
    fake.on('POST', '/v2/state/active-contracts', {
      body: [holdingEntry({ amount: '1' }), holdingEntry({ amount: '2' })],
    });
    await holdings(ledger);
    await holdings(ledger);
    const other = client(reads, 'ledger:node1 as bob');
    fake.on('POST', '/v2/state/active-contracts', { body: [holdingEntry({ amount: '1' })] });
    await holdings(other);
    await holdings(ledger, ACCOUNTS);
    await holdings(ledger, ACCOUNTS);
    // one ledger end for the participant, shared by both readers; each reader's small answer kept for itself
    expect(paths()).toEqual([
      'GET /v2/state/ledger-end',
      'POST /v2/state/active-contracts',
      'POST /v2/state/active-contracts',
      'POST /v2/state/active-contracts',
      'POST /v2/state/active-contracts',
    ]);
  });

  it('updates up to "now" use the snapshot once; the same query again (a poll) reads a fresh ledger end', async () => {
    const reads = new ReadCache({ now: clock().now });
    const ledger = client(reads);
    ledgerAt(700);
    fake.on('POST', '/v2/state/active-contracts', { body: [] });
    await holdings(ledger);
    const tx = transaction([{ CreatedEvent: createdEvent({ templateId: IDS.registryHolding }) }], 'mint');
    fake.on('POST', '/v2/updates', { body: [{ update: { Transaction: { value: tx } } }] });

    expect(await ledger.transactions({ parties: [ALICE], beginExclusive: 650 })).toHaveLength(1);
    ledgerAt(720);
    expect(await ledger.transactions({ parties: [ALICE], beginExclusive: 650 })).toHaveLength(1);
    ledgerAt(730);
    expect(await ledger.transactions({ parties: [ALICE], beginExclusive: 650 })).toHaveLength(1);

    const ends = fake.requests
      .filter((r) => r.path === '/v2/updates')
      .map((r) => (r.body as { endInclusive: number }).endInclusive);
    expect(ends).toEqual([700, 720, 730]);
    expect(paths().filter((p) => p.endsWith('ledger-end'))).toHaveLength(3);
  });

  it('without a ReadCache every read asks for the ledger end', async () => {
    const ledger = new LedgerClient(
      new HttpService({ service: 'ledger:node1', baseUrl: fake.url, dispatcher: agent, timeoutMs: 5000 }),
      { dispatcher: agent },
    );
    ledgerAt(700);
    fake.on('POST', '/v2/state/active-contracts', { body: [] });
    await holdings(ledger);
    await holdings(ledger);
    expect(paths().filter((p) => p.endsWith('ledger-end'))).toHaveLength(2);
  });
});

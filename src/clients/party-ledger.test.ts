/**
 * PartyLedger against a loopback participant: holdings by exact instrument from the Holding view, locked vs
 * unlocked with exact sums, offers through the TransferInstruction view, accounts, requests and credentials from
 * their payloads, and submissions as the party.
 */
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeService } from '../../test/clients/fake-service.js';
import {
  ADMIN,
  ALICE,
  BOB,
  IDS,
  INSTRUMENT,
  OPERATOR,
  OTHER_ADMIN,
  activeEntry,
  createdEvent,
  exercisedEvent,
  holdingEntry,
  offerEntry,
  transaction,
} from '../../test/clients/ledger-bodies.js';
import { HttpService } from './http.js';
import { LedgerClient } from './ledger.js';
import { LedgerError } from './ledger-errors.js';
import { PartyLedger, isMinterCredential } from './party-ledger.js';
import { transferInstructionCommand } from './token-commands.js';
import { TOKEN_INTERFACES, TOKEN_TEMPLATES } from './token-wire.js';

let fake: FakeService;
const agent = new Agent();

beforeAll(async () => {
  fake = await FakeService.start();
});
afterAll(async () => {
  await fake.close();
  await agent.close();
});
beforeEach(() => {
  fake.reset();
  fake.on('GET', '/v2/state/ledger-end', { body: { offset: 500 } });
});

function alice(): PartyLedger {
  const http = new HttpService({
    service: 'ledger:node1',
    baseUrl: fake.url,
    dispatcher: agent,
    timeoutMs: 5000,
  });
  return new PartyLedger(new LedgerClient(http, { dispatcher: agent }), ALICE);
}

/** The ACS answer over both transports. */
function acs(entries: unknown[]): void {
  fake.on('POST', '/v2/state/active-contracts', { body: entries });
  fake.onWebSocket('/v2/state/active-contracts', { frames: entries });
}

describe('holdings', () => {
  it('match admin and id exactly, count only the party’s own, split locked from unlocked, sum exactly', async () => {
    acs([
      holdingEntry({ amount: '0.1000000000', contractId: '00h1' }),
      holdingEntry({ amount: '0.2', contractId: '00h2' }),
      holdingEntry({ amount: '0.0500000000', locked: true, contractId: '00h3' }),
      holdingEntry({ amount: '5', admin: OTHER_ADMIN }),
      holdingEntry({ amount: '7', id: 'cbtc' }),
      holdingEntry({ amount: '9', owner: BOB }),
    ]);
    const holdings = await alice().holdings(INSTRUMENT);
    expect(holdings.unlocked.map((h) => h.contractId)).toEqual(['00h1', '00h2']);
    expect(holdings.locked.map((h) => h.contractId)).toEqual(['00h3']);
    expect(holdings.unlockedTotal).toBe('0.3');
    expect(holdings.lockedTotal).toBe('0.05');
    expect(holdings.activeAtOffset).toBe(500);
    expect(holdings.unreadable).toEqual([]);
    expect(holdings.unlocked[0]).toMatchObject({
      amount: '0.1000000000',
      owner: ALICE,
      instrumentId: INSTRUMENT,
      lock: null,
    });
    expect(holdings.locked[0]?.lock).toEqual({
      holders: [ADMIN],
      expiresAt: null,
      context: 'transfer offer',
    });
    // over the WebSocket (the default), with the Holding interface and its view
    expect(fake.wsRequests[0]?.request).toMatchObject({
      activeAtOffset: 500,
      eventFormat: {
        filtersByParty: {
          [ALICE]: {
            cumulative: [
              {
                identifierFilter: {
                  InterfaceFilter: {
                    value: {
                      interfaceId: '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding',
                      includeInterfaceView: true,
                    },
                  },
                },
              },
            ],
          },
        },
      },
    });
  });

  it('reads amounts from the view even when createArgument is null; a failed view is reported, not summed', async () => {
    acs([
      holdingEntry({ amount: '1.25', contractId: '00ok' }),
      activeEntry(
        createdEvent({
          contractId: '00bad',
          templateId: IDS.registryHolding,
          createArgument: { amount: '999' },
          views: [{ interfaceId: IDS.holdingInterface, code: 9, message: 'view computation failed' }],
        }),
      ),
      activeEntry(
        createdEvent({
          contractId: '00odd',
          templateId: IDS.registryHolding,
          views: [
            {
              interfaceId: IDS.holdingInterface,
              viewValue: {
                owner: ALICE,
                instrumentId: INSTRUMENT,
                amount: '1e-3',
                lock: null,
                meta: { values: {} },
              },
            },
          ],
        }),
      ),
    ]);
    const holdings = await alice().holdings(INSTRUMENT, { transport: 'http' });
    expect(holdings.unlockedTotal).toBe('1.25');
    expect(holdings.unreadable.map((u) => u.contractId)).toEqual(['00bad', '00odd']);
    expect(holdings.unreadable[0]?.reason).toBe('view computation failed');
    expect(holdings.unreadable[1]?.reason).toMatch(/not a decimal amount/);
  });

  it('an error frame is an error, never an empty balance', async () => {
    fake.onWebSocket('/v2/state/active-contracts', {
      frames: [{ code: 'PERMISSION_DENIED', cause: 'not allowed', context: {}, errorCategory: 7 }],
    });
    await expect(alice().holdings(INSTRUMENT)).rejects.toBeInstanceOf(LedgerError);
  });
});

describe('transfer offers', () => {
  it('incoming and outgoing through the TransferInstruction view, of the exact instrument', async () => {
    acs([
      offerEntry({ sender: BOB, receiver: ALICE, amount: '0.5', contractId: '00in' }),
      offerEntry({ sender: ALICE, receiver: BOB, amount: '0.25', contractId: '00out' }),
      offerEntry({ sender: BOB, receiver: ALICE, amount: '1', admin: OTHER_ADMIN }),
      offerEntry({ sender: BOB, receiver: OPERATOR, amount: '1' }),
    ]);
    const offers = await alice().transferOffers(INSTRUMENT);
    expect(offers.map((o) => [o.contractId, o.direction, o.amount])).toEqual([
      ['00in', 'incoming', '0.5'],
      ['00out', 'outgoing', '0.25'],
    ]);
    expect(offers[0]).toMatchObject({
      templateId: IDS.transferOffer,
      sender: BOB,
      receiver: ALICE,
      executeBefore: '2026-04-17T09:04:59.812345Z',
      status: 'TransferPendingReceiverAcceptance',
    });
  });

  it('an offer whose view lacks the transfer is an unexpected response', async () => {
    acs([
      activeEntry(
        createdEvent({
          templateId: IDS.transferOffer,
          views: [{ interfaceId: IDS.instructionInterface, viewValue: { status: { tag: 'x' } } }],
        }),
      ),
    ]);
    await expect(alice().transferOffers(INSTRUMENT)).rejects.toMatchObject({ kind: 'unexpected-response' });
  });
});

describe('transfer history', () => {
  it('offers made, how each ended, and settlements, of the exact instrument, from the update stream', async () => {
    const offer = (contractId: string, receiver: string, admin?: string) => {
      const entry = offerEntry({
        sender: ALICE,
        receiver,
        amount: '0.5',
        contractId,
        ...(admin ? { admin } : {}),
      });
      return {
        CreatedEvent: (entry.contractEntry as { JsActiveContract: { createdEvent: unknown } })
          .JsActiveContract.createdEvent,
      };
    };
    const ended = (contractId: string, choice: string) => ({
      ExercisedEvent: exercisedEvent({
        nodeId: 0,
        lastDescendantNodeId: 2,
        contractId,
        templateId: IDS.transferOffer,
        interfaceId: IDS.instructionInterface,
        choice,
        consuming: true,
      }),
    });
    const settlement = {
      CreatedEvent: createdEvent({
        templateId: IDS.executedTransfer,
        contractId: '00ex',
        createArgument: {
          operator: OPERATOR,
          provider: OPERATOR,
          sender: ALICE,
          receiver: BOB,
          amount: '0.5',
          instrumentId: INSTRUMENT,
          executedAt: '2026-04-10T09:05:00Z',
          meta: { values: { 'ledgerbook.dev/distribution': 'd1' } },
        },
      }),
    };
    fake.onWebSocket('/v2/updates', {
      frames: [
        {
          update: {
            Transaction: {
              value: { ...transaction([offer('00o1', BOB), offer('00o9', BOB, OTHER_ADMIN)]), offset: 501 },
            },
          },
        },
        {
          update: {
            Transaction: {
              value: { ...transaction([ended('00o1', 'TransferInstruction_Reject')]), offset: 502 },
            },
          },
        },
        { update: { Transaction: { value: { ...transaction([offer('00o2', BOB)]), offset: 503 } } } },
        {
          update: {
            Transaction: {
              value: {
                ...transaction([ended('00o2', 'TransferInstruction_Accept'), settlement]),
                offset: 504,
              },
            },
          },
        },
      ],
    });
    const events: string[] = [];
    const { endInclusive } = await alice().eachTransferEvent(INSTRUMENT, { beginExclusive: 0 }, (e) =>
      events.push(
        e.kind === 'offer'
          ? `${e.offset} offer ${e.offer.contractId} to ${e.offer.receiver === BOB ? 'bob' : '?'}`
          : e.kind === 'offer-ended'
            ? `${e.offset} ${e.contractId} ${e.end}`
            : `${e.offset} settled ${e.transfer.contractId} ${e.transfer.meta['ledgerbook.dev/distribution']}`,
      ),
    );
    expect(events).toEqual([
      '501 offer 00o1 to bob',
      '502 00o1 rejected',
      '503 offer 00o2 to bob',
      '504 00o2 accepted',
      '504 settled 00ex d1',
    ]);
    expect(endInclusive).toBe(500);
    expect(fake.wsRequests[0]?.request).toMatchObject({
      beginExclusive: 0,
      endInclusive: 500,
      updateFormat: {
        includeTransactions: {
          eventFormat: {
            filtersByParty: {
              [ALICE]: {
                cumulative: [
                  {
                    identifierFilter: {
                      InterfaceFilter: {
                        value: {
                          interfaceId: TOKEN_INTERFACES.transferInstruction,
                          includeInterfaceView: true,
                        },
                      },
                    },
                  },
                  {
                    identifierFilter: {
                      TemplateFilter: { value: { templateId: TOKEN_TEMPLATES.executedTransfer } },
                    },
                  },
                ],
              },
            },
          },
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        },
      },
    });
  });
});

describe('accounts, withdraw requests and credentials (template payloads, over HTTP)', () => {
  it('deposit accounts: accountId is the id, or the contract id of an older account; limits normalised', async () => {
    fake.on('POST', '/v2/state/active-contracts', {
      body: [
        activeEntry(
          createdEvent({
            contractId: '00da1',
            templateId: IDS.depositAccount,
            blob: 'CgMy',
            createArgument: {
              id: '6f1c2b4e-0000-4000-8000-000000000001',
              owner: ALICE,
              operator: OPERATOR,
              registrar: ADMIN,
              instrument: INSTRUMENT,
              lastProcessedBitcoinBlock: '812345',
              limits: { minAmount: '0.001', maxAmount: null },
            },
          }),
        ),
        activeEntry(
          createdEvent({
            contractId: '00da2',
            templateId: IDS.depositAccount,
            createArgument: {
              id: null,
              owner: ALICE,
              operator: OPERATOR,
              registrar: ADMIN,
              lastProcessedBitcoinBlock: '0',
              limits: { minAmount: null, maxAmount: null },
            },
          }),
        ),
      ],
    });
    const accounts = await alice().depositAccounts();
    expect(accounts.map((a) => [a.accountId, a.limits])).toEqual([
      ['6f1c2b4e-0000-4000-8000-000000000001', { minAmount: '0.001', maxAmount: null }],
      ['00da2', null],
    ]);
    expect(accounts[0]?.createdEventBlob).toBe('CgMy');
    expect(fake.requests.at(-1)?.body).toMatchObject({
      eventFormat: {
        filtersByParty: {
          [ALICE]: {
            cumulative: [
              {
                identifierFilter: {
                  TemplateFilter: {
                    value: {
                      templateId: '#cbtc:CBTC.DepositAccount:CBTCDepositAccount',
                      includeCreatedEventBlob: true,
                    },
                  },
                },
              },
            ],
          },
        },
      },
    });
  });

  it('withdraw accounts default pendingBalance to "0"; withdraw requests tolerate a null btcTxId', async () => {
    fake.on('POST', '/v2/state/active-contracts', (r) => {
      const wanted = JSON.stringify(r.body);
      if (wanted.includes('CBTCWithdrawAccount'))
        return {
          body: [
            activeEntry(
              createdEvent({
                contractId: '00wa',
                templateId: IDS.withdrawAccount,
                createArgument: {
                  owner: ALICE,
                  operator: OPERATOR,
                  registrar: ADMIN,
                  destinationBtcAddress: 'bcrt1qdest',
                  limits: null,
                },
              }),
            ),
          ],
        };
      return {
        body: [
          activeEntry(
            createdEvent({
              templateId: IDS.withdrawRequest,
              createArgument: {
                owner: ALICE,
                registrar: ADMIN,
                amount: '0.001',
                destinationBtcAddress: 'bcrt1qdest',
                btcTxId: null,
              },
            }),
          ),
        ],
      };
    });
    expect(await alice().withdrawAccounts()).toMatchObject([
      { contractId: '00wa', accountId: '00wa', pendingBalance: '0', destinationBtcAddress: 'bcrt1qdest' },
    ]);
    expect(await alice().withdrawRequests()).toMatchObject([
      { amount: '0.001', btcTxId: null, sourceAccountId: null },
    ]);
  });

  it('credentials held by the party, the Minter test, and user services', async () => {
    const credential = (holder: string, value: string) =>
      activeEntry(
        createdEvent({
          templateId: IDS.credential,
          createArgument: {
            issuer: ADMIN,
            holder,
            id: 'minter-1',
            description: 'CBTC minter',
            claims: [{ subject: holder, property: 'hasCBTCRole', value }],
            observers: [],
          },
        }),
      );
    fake.on('POST', '/v2/state/active-contracts', (r) =>
      JSON.stringify(r.body).includes('UserService')
        ? {
            body: [
              activeEntry(
                createdEvent({
                  contractId: '00us',
                  templateId: IDS.userService,
                  createArgument: { operator: OPERATOR, user: ALICE, dso: ADMIN },
                }),
              ),
            ],
          }
        : { body: [credential(ALICE, 'Minter'), credential(ALICE, 'Viewer'), credential(BOB, 'Minter')] },
    );
    const credentials = await alice().credentials();
    expect(credentials.map(isMinterCredential)).toEqual([true, false]);
    expect(await alice().userServices()).toMatchObject([{ contractId: '00us', templateId: IDS.userService }]);
  });

  it('a payload of another shape fails the read (it must not hide an account)', async () => {
    fake.on('POST', '/v2/state/active-contracts', {
      body: [activeEntry(createdEvent({ templateId: IDS.depositAccount, createArgument: { owner: ALICE } }))],
    });
    const error = await alice()
      .depositAccounts()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'unexpected-response', retryability: 'permanent' });
    expect((error as Error).message).toContain('lastProcessedBitcoinBlock');
  });
});

describe('submit', () => {
  it('acts as the party with the caller’s command id and the prepared disclosures', async () => {
    fake.on('POST', '/v2/commands/submit-and-wait-for-transaction', {
      body: { transaction: transaction([]) },
    });
    const context = {
      choiceContextData: { values: {} },
      disclosedContracts: [{ contractId: '00x', createdEventBlob: 'CgMy', synchronizerId: '' }],
    };
    await alice().submit('accept-00fadd', transferInstructionCommand('accept', '00fadd', context), {
      deduplication: { durationSeconds: 3600 },
    });
    const commands = (fake.requests[0]?.body as { commands: Record<string, unknown> }).commands;
    expect(commands).toMatchObject({
      commandId: 'accept-00fadd',
      actAs: [ALICE],
      disclosedContracts: context.disclosedContracts,
      deduplicationPeriod: { DeduplicationDuration: { value: { seconds: 3600, nanos: 0 } } },
    });
  });
});

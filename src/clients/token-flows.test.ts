/**
 * The §8 flows end to end against one loopback server playing registry, gateway and participant: each fetches
 * its factory, context or rules right before the submission that uses them, submits once under the caller's
 * command id, and reads the outcome.
 */
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeService, type Recorded } from '../../test/clients/fake-service.js';
import {
  ADMIN,
  ALICE,
  BOB,
  IDS,
  OTHER_ADMIN,
  SYNC,
  choiceContext,
  createdEvent,
  exercisedEvent,
  registryDisclosed,
  transaction,
} from '../../test/clients/ledger-bodies.js';
import { StepError } from '../errors.js';
import { GatewayClient } from './gateway.js';
import { HttpService } from './http.js';
import { LedgerClient } from './ledger.js';
import { PartyLedger } from './party-ledger.js';
import { RegistryClient } from './registry.js';
import { transferOf } from './token-commands.js';
import { actOnTransferInstruction, burn, createDepositAccount, sendTransfer } from './token-flows.js';

let fake: FakeService;
const agent = new Agent();
const submitPath = '/v2/commands/submit-and-wait-for-transaction';
const registryBase = `/api/token-standard/v0/registrars/${ADMIN}/registry`;

beforeAll(async () => {
  fake = await FakeService.start();
});
afterAll(async () => {
  await fake.close();
  await agent.close();
});
beforeEach(() => fake.reset());

const http = (service: string) =>
  new HttpService({ service, baseUrl: fake.url, dispatcher: agent, timeoutMs: 5000 });
const party = () => new PartyLedger(new LedgerClient(http('ledger:node1'), { dispatcher: agent }), ALICE);
const registry = () => new RegistryClient(http('registry'), ADMIN);
const gateway = () => new GatewayClient(http('gateway'));

const transfer = transferOf({
  sender: ALICE,
  receiver: BOB,
  amount: '0.02',
  instrument: { admin: ADMIN, id: 'CBTC' },
  requestedAt: '2026-04-10T09:04:59Z',
  executeBefore: '2026-04-17T09:04:59Z',
  inputHoldingCids: ['00c5eb'],
});

function submitted(): Record<string, unknown> {
  const request = fake.requests.find((r: Recorded) => r.path === submitPath);
  return (request?.body as { commands: Record<string, unknown> }).commands;
}

function resultTransaction(choice: string, output: unknown, events: unknown[] = []) {
  return {
    transaction: transaction([
      {
        ExercisedEvent: exercisedEvent({
          nodeId: 0,
          lastDescendantNodeId: events.length,
          templateId: IDS.factory,
          choice,
          exerciseResult: { output, senderChangeCids: ['00change'], meta: { values: {} } },
        }),
      },
      ...events,
    ]),
  };
}

describe('send a transfer', () => {
  it('fetches the factory for this transfer, then submits it as the sender: an offer is pending', async () => {
    fake
      .on('POST', `${registryBase}/transfer-instruction/v1/transfer-factory`, {
        body: {
          factoryId: '000b99',
          transferKind: 'offer',
          choiceContext: choiceContext([registryDisclosed('000b99', IDS.factory)]),
        },
      })
      .on('POST', submitPath, {
        body: resultTransaction('TransferFactory_Transfer', {
          tag: 'TransferInstructionResult_Pending',
          value: { transferInstructionCid: '00fadd' },
        }),
      });
    const sent = await sendTransfer(party(), registry(), transfer, { commandId: 'send-1' });
    expect(fake.requests.map((r) => r.path)).toEqual([
      `${registryBase}/transfer-instruction/v1/transfer-factory`,
      submitPath,
    ]);
    expect(sent.transferKind).toBe('offer');
    expect(sent.result?.outcome).toEqual({ status: 'pending', transferInstructionCid: '00fadd' });
    expect(sent.result?.senderChangeCids).toEqual(['00change']);
    const commands = submitted();
    expect(commands).toMatchObject({
      commandId: 'send-1',
      actAs: [ALICE],
      disclosedContracts: [
        {
          templateId: IDS.factory,
          contractId: '000b99',
          createdEventBlob: 'CgMyLjESgAQKRQDEqC3b',
          synchronizerId: SYNC,
        },
      ],
    });
    const exercise = (commands.commands as Array<{ ExerciseCommand: Record<string, unknown> }>)[0]
      ?.ExerciseCommand;
    expect(exercise).toMatchObject({ contractId: '000b99', choice: 'TransferFactory_Transfer' });
    expect(exercise?.choiceArgument).toMatchObject({
      extraArgs: { context: choiceContext([]).choiceContextData, meta: { values: {} } },
    });
  });

  it('a receiver who pre-approved: completed at once, which is success, not a parse failure', async () => {
    fake
      .on('POST', `${registryBase}/transfer-instruction/v1/transfer-factory`, {
        body: { factoryId: '000b99', transferKind: 'direct', choiceContext: choiceContext([]) },
      })
      .on('POST', submitPath, {
        body: resultTransaction('TransferFactory_Transfer', {
          tag: 'TransferInstructionResult_Completed',
          value: { receiverHoldingCids: ['00bobs'] },
        }),
      });
    const sent = await sendTransfer(party(), registry(), transfer, { commandId: 'send-2' });
    expect(sent.result?.outcome).toEqual({ status: 'completed', receiverHoldingCids: ['00bobs'] });
  });

  it('refuses a transfer of another sender or another admin before asking anyone', async () => {
    const notMine = { ...transfer, sender: BOB };
    await expect(sendTransfer(party(), registry(), notMine, { commandId: 'x' })).rejects.toBeInstanceOf(
      StepError,
    );
    const otherAdmin = { ...transfer, instrumentId: { admin: OTHER_ADMIN, id: 'CBTC' } };
    await expect(sendTransfer(party(), registry(), otherAdmin, { commandId: 'x' })).rejects.toThrow(
      /registry's/,
    );
    expect(fake.requests).toHaveLength(0);
  });
});

describe('instruction choices', () => {
  it.each(['accept', 'reject', 'withdraw'] as const)(
    '%s fetches that choice’s context for the offer',
    async (choice) => {
      fake
        .on('POST', `${registryBase}/transfer-instruction/v1/00fadd/choice-contexts/${choice}`, {
          body: choiceContext([registryDisclosed('00eca7', IDS.instrumentConfiguration)]),
        })
        .on('POST', submitPath, {
          body: resultTransaction(`TransferInstruction_${choice[0]?.toUpperCase()}${choice.slice(1)}`, {
            tag:
              choice === 'accept'
                ? 'TransferInstructionResult_Completed'
                : 'TransferInstructionResult_Failed',
            value: choice === 'accept' ? { receiverHoldingCids: ['00r'] } : {},
          }),
        });
      const { result } = await actOnTransferInstruction(party(), registry(), choice, '00fadd', {
        commandId: `${choice}-1`,
      });
      expect(result?.outcome.status).toBe(choice === 'accept' ? 'completed' : 'failed');
      expect(fake.requests[0]?.path).toBe(
        `${registryBase}/transfer-instruction/v1/00fadd/choice-contexts/${choice}`,
      );
      expect(submitted().disclosedContracts).toEqual([
        registryDisclosed('00eca7', IDS.instrumentConfiguration),
      ]);
    },
  );
});

describe('wrapped-token accounts and the burn', () => {
  const info = (id: string, templateId: string) => ({
    contract_id: id,
    template_id: templateId,
    created_event_blob: `blob-${id}`,
  });

  it('creates a deposit account from freshly fetched rules and returns the created account', async () => {
    fake
      .on('GET', '/wrapped/v1/account-contract-rules', {
        body: { da_rules: info('0085', IDS.depositRules), wa_rules: info('00c0', IDS.withdrawRules) },
      })
      .on('POST', submitPath, {
        body: {
          transaction: transaction([
            {
              ExercisedEvent: exercisedEvent({
                nodeId: 0,
                lastDescendantNodeId: 1,
                contractId: '0085',
                templateId: IDS.depositRules,
                choice: 'CBTCDepositAccountRules_CreateDepositAccount',
                exerciseResult: { depositAccountCid: '00da' },
              }),
            },
            { CreatedEvent: createdEvent({ templateId: IDS.depositAccount, contractId: '00da', nodeId: 1 }) },
          ]),
        },
      });
    const created = await createDepositAccount(party(), gateway(), ['00cred'], { commandId: 'cmd-da' });
    expect(created.account?.contractId).toBe('00da');
    expect(fake.requests.map((r) => r.path)).toEqual(['/wrapped/v1/account-contract-rules', submitPath]);
    expect(submitted().disclosedContracts).toEqual([
      { templateId: IDS.depositRules, contractId: '0085', createdEventBlob: 'blob-0085', synchronizerId: '' },
    ]);
  });

  it('burns with the token-standard contracts fetched right before, and returns the re-created account', async () => {
    fake
      .on('GET', '/wrapped/v1/token-standard-contracts', {
        body: {
          burn_mint_factory: info('00b1', 'p:M:BurnMintFactory'),
          instrument_configuration: info('00b2', IDS.instrumentConfiguration),
          issuer_credential: info('00b3', IDS.credential),
        },
      })
      .on('POST', submitPath, {
        body: {
          transaction: transaction([
            {
              ExercisedEvent: exercisedEvent({
                nodeId: 0,
                lastDescendantNodeId: 1,
                contractId: '00wa',
                templateId: IDS.withdrawAccount,
                choice: 'CBTCWithdrawAccount_Withdraw',
                consuming: true,
              }),
            },
            {
              CreatedEvent: createdEvent({ templateId: IDS.withdrawAccount, contractId: '00wa2', nodeId: 1 }),
            },
          ]),
        },
      });
    const burned = await burn(
      party(),
      gateway(),
      { withdrawAccountCid: '00wa', tokens: ['00h1'], amount: '0.001' },
      { commandId: 'cmd-burn' },
    );
    expect(burned.account?.contractId).toBe('00wa2');
    expect((submitted().disclosedContracts as unknown[]).length).toBe(3);
  });
});

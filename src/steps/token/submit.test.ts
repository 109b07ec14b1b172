/**
 * Exactly once against a loopback participant: a submission whose answer is lost, or refused as a duplicate, is
 * settled from the ledger (the command's completion, then its transaction) and never sent under another id.
 */
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeService, type Recorded } from '../../../test/clients/fake-service.js';
import { ALICE, cantonError, transaction } from '../../../test/clients/ledger-bodies.js';
import { HttpService } from '../../clients/http.js';
import { LedgerClient } from '../../clients/ledger.js';
import type { Transaction } from '../../clients/ledger-wire.js';
import { PartyLedger } from '../../clients/party-ledger.js';
import { AmbiguousOutcomeError, StepError } from '../../errors.js';
import type { Intent, ItemContext } from '../contract.js';
import { offlineClients } from '../../clients/factory.js';
import { settle, submitOnce, type SubmitIntent } from './submit.js';

let fake: FakeService;
const agent = new Agent();
const SUBMIT = '/v2/commands/submit-and-wait-for-transaction';
const COMMAND = 'lb-burn-burn-0123456789abcdef0123456789abcdef';

beforeAll(async () => {
  fake = await FakeService.start();
});
afterAll(async () => {
  await fake.close();
  await agent.close();
});
beforeEach(() => {
  fake.reset();
  fake.on('GET', '/v2/state/ledger-end', { body: { offset: 4200 } });
});

function party(): PartyLedger {
  const http = new HttpService({
    service: 'ledger:node1',
    baseUrl: fake.url,
    dispatcher: agent,
    timeoutMs: 3000,
  });
  return new PartyLedger(new LedgerClient(http, { dispatcher: agent }), ALICE);
}

function context(intents: Intent[]): ItemContext {
  return {
    runId: 'r',
    stepId: 'burn',
    playbookName: 'redeem',
    targetName: 'unit',
    mode: 'run',
    target: undefined,
    clients: offlineClients(),
    clock: { now: () => Date.now(), sleep: () => Promise.resolve() },
    signal: new AbortController().signal,
    siblingFailed: new AbortController().signal,
    approvals: new Set(),
    baseDir: '.',
    actor: 'unit',
    previous: undefined,
    source: {},
    fingerprint: 'f',
    outputDir: '.',
    concurrency: 1,
    session: undefined,
    log: () => undefined,
    output: () => undefined,
    laterStep: () => undefined,
    progress: () => undefined,
    evaluate: () => undefined,
    item: { key: '', value: undefined },
    attempt: 1,
    commandId: () => COMMAND,
    deadline: undefined,
    record: (intent) => {
      intents.push(intent);
      return Promise.resolve();
    },
  };
}

const landed = transaction([], COMMAND) as unknown as Transaction;

function completion(code: number, message = ''): unknown[] {
  return [
    {
      completionResponse: {
        Completion: {
          value: {
            commandId: COMMAND,
            status: { code, message },
            updateId: landed.updateId,
            offset: 4300,
            actAs: [ALICE],
          },
        },
      },
    },
  ];
}

function send(p: PartyLedger): () => Promise<Transaction> {
  return () =>
    p.ledger.submitAndWaitForTransaction({
      commandId: COMMAND,
      actAs: [ALICE],
      commands: [
        { ExerciseCommand: { templateId: '#cbtc:M:T', contractId: '00aa', choice: 'C', choiceArgument: {} } },
      ],
    });
}

const submissions = (): Recorded[] => fake.requests.filter((r) => r.path === SUBMIT);

describe('submitOnce', () => {
  it('records the intent, with the ledger end, before it sends', async () => {
    const intents: Intent[] = [];
    fake.on('POST', SUBMIT, () => {
      expect(intents).toEqual([
        { action: 'burn', commandId: COMMAND, amount: '0.1', party: ALICE, offset: 4200 },
      ]);
      return { body: { transaction: landed } };
    });
    const p = party();
    const result = await submitOnce(
      context(intents),
      p,
      { action: 'burn', commandId: COMMAND, amount: '0.1' },
      send(p),
    );
    expect(result.updateId).toBe(landed.updateId);
  });

  it('settles a lost answer from the completion and the transaction, and sends nothing again', async () => {
    fake.on('POST', SUBMIT, { drop: true });
    fake.on('POST', '/v2/commands/completions', { body: completion(0) });
    fake.on('POST', '/v2/updates', { body: [{ update: { Transaction: { value: landed } } }] });
    const p = party();
    const result = await submitOnce(context([]), p, { action: 'burn', commandId: COMMAND }, send(p));
    expect(result.updateId).toBe(landed.updateId);
    expect(submissions()).toHaveLength(1);
    const completions = fake.requests.find((r) => r.path === '/v2/commands/completions');
    expect(completions?.body).toMatchObject({ parties: [ALICE], beginExclusive: 4200 });
    expect(fake.requests.find((r) => r.path === '/v2/updates')?.body).toMatchObject({
      beginExclusive: 4299,
      endInclusive: 4300,
    });
  });

  it('settles DUPLICATE_COMMAND from the offset the participant names', async () => {
    fake.on('POST', SUBMIT, {
      status: 409,
      body: cantonError(
        'DUPLICATE_COMMAND',
        'A command with the given command id has already been successfully processed',
        10,
        {
          context: { completion_offset: '4100' },
        },
      ),
    });
    fake.on('POST', '/v2/updates', {
      body: [{ update: { Transaction: { value: { ...landed, offset: 4100 } } } }],
    });
    const p = party();
    const result = await submitOnce(context([]), p, { action: 'burn', commandId: COMMAND }, send(p));
    expect(result.offset).toBe(4100);
    expect(fake.requests.find((r) => r.path === '/v2/updates')?.body).toMatchObject({
      beginExclusive: 4099,
      endInclusive: 4100,
    });
    expect(fake.requests.some((r) => r.path === '/v2/commands/completions')).toBe(false);
  });

  it('reports a rejection the completion shows as a definite failure', async () => {
    fake.on('POST', SUBMIT, { drop: true });
    fake.on('POST', '/v2/commands/completions', { body: completion(9, 'Insufficient funds') });
    const p = party();
    const error = await submitOnce(context([]), p, { action: 'burn', commandId: COMMAND }, send(p)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StepError);
    expect((error as StepError).message).toContain('Insufficient funds');
    expect(submissions()).toHaveLength(1);
  });

  it('stops as ambiguous (exit 4) when no completion shows up', async () => {
    fake.on('POST', SUBMIT, { drop: true });
    fake.on('POST', '/v2/commands/completions', { body: [] });
    const p = party();
    const error = await submitOnce(context([]), p, { action: 'burn', commandId: COMMAND }, send(p)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AmbiguousOutcomeError);
    expect((error as AmbiguousOutcomeError).exitCode).toBe(4);
    expect(submissions()).toHaveLength(1);
  });

  it('passes a definite refusal through untouched', async () => {
    fake.on('POST', SUBMIT, {
      status: 400,
      body: cantonError('DAML_INTERPRETATION_ERROR', 'Withdraw amount 9 exceeds maximum 5', 9),
    });
    const p = party();
    const error = await submitOnce(context([]), p, { action: 'burn', commandId: COMMAND }, send(p)).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ retryability: 'permanent' });
    expect(fake.requests.some((r) => r.path === '/v2/commands/completions')).toBe(false);
  });
});

describe('settle (reconcile after a crash)', () => {
  const intent: SubmitIntent = { action: 'burn', commandId: COMMAND, party: ALICE, offset: 4200 };

  it('is unknown when the command has no completion after the recorded offset', async () => {
    fake.on('POST', '/v2/commands/completions', { body: [] });
    expect(await settle(context([]), party(), intent)).toEqual({ status: 'unknown' });
  });

  it('is committed, with the transaction, when the completion says so', async () => {
    fake.on('POST', '/v2/commands/completions', { body: completion(0) });
    fake.on('POST', '/v2/updates', { body: [{ update: { Transaction: { value: landed } } }] });
    const settled = await settle(context([]), party(), intent);
    expect(settled).toMatchObject({ status: 'committed', updateId: landed.updateId });
  });
});

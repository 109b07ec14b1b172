/**
 * The ledger's rules with a template of its own (nothing token-specific): authorization, visibility and
 * disclosure, atomicity, deduplication, locks while a submission is in flight, pruning of the history, restart.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LedgerError } from './errors.js';
import { type Command, Ledger } from './ledger.js';
import { T } from './lf.js';
import { Catalog, type TemplateDef, template } from './model.js';

const PKG = { id: 'a'.repeat(64), name: 'toy', version: '1.0.0' };
const P = (name: string) => `${name}::1220${'0'.repeat(64)}`;
const [bank, alice, bob, carol] = ['bank', 'alice', 'bob', 'carol'].map(P) as [
  string,
  string,
  string,
  string,
];

interface IouArg {
  issuer: string;
  owner: string;
  amount: string;
}

const Iou: TemplateDef<IouArg> = template<IouArg>({
  pkg: PKG,
  name: { module: 'Toy', entity: 'Iou' },
  argType: T.record('Iou', { issuer: T.party, owner: T.party, amount: T.numeric }),
  signatories: (a) => [a.issuer, a.owner],
  observers: () => [],
  choices: {
    Give: {
      argType: T.record('Give', { to: T.party }),
      consuming: true,
      // the new owner is a signatory of the new contract: its authority comes in as a controller
      controllers: (a, arg: { to: string }) => [a.owner, arg.to],
      body: (tx, self, arg: { to: string }): unknown => ({
        iou: tx.create(Iou, { ...self.arg, owner: arg.to }),
      }),
    },
    Peek: {
      argType: T.record('Peek', { other: T.cid }),
      consuming: false,
      controllers: (a) => [a.owner],
      body: (tx, _self, arg: { other: string }): unknown => ({
        amount: tx.fetch<IouArg>(arg.other, Iou).arg.amount,
      }),
    },
  },
});

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function open(
  dir = mkdtempSync(join(tmpdir(), 'lb-ledger-')),
  segmentEntries = 20_000,
  maxDeduplicationMicros?: number,
): Ledger {
  if (!dirs.includes(dir)) dirs.push(dir);
  const ledger = new Ledger({
    stateDir: dir,
    catalog: new Catalog().add(Iou),
    synchronizerId: 'global::1220',
    topology: { decentralizedHosting: () => undefined, decentralizedParties: () => [] },
    historyWindow: 5,
    log: { segmentEntries, retainedSegments: 2 },
    ...(maxDeduplicationMicros === undefined ? {} : { maxDeduplicationMicros }),
  });
  if (ledger.open()) for (const p of [bank, alice, bob]) ledger.allocateParty(p, 'p1');
  return ledger;
}

const create = (a: IouArg): Command => ({ kind: 'create', template: Iou, arg: a });
let n = 0;
const submit = (
  ledger: Ledger,
  actAs: string[],
  commands: Command[],
  extra: Partial<Parameters<Ledger['submit']>[0]> = {},
) => ledger.submit({ participant: 'p1', userId: 'u', actAs, commandId: `c${n++}`, commands, ...extra });

async function refusal(promise: Promise<unknown>): Promise<LedgerError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LedgerError);
  return error as LedgerError;
}

describe('the sandbox ledger', () => {
  it('needs every signatory’s authority to create, and the controllers’ to exercise', async () => {
    const ledger = open();
    expect(
      (await refusal(submit(ledger, [alice], [create({ issuer: bank, owner: alice, amount: '1' })]))).code,
    ).toBe('DAML_AUTHORIZATION_ERROR');
    const tx = await submit(ledger, [bank, alice], [create({ issuer: bank, owner: alice, amount: '1' })]);
    const cid = tx.nodes[0]!.cid;
    // Give to bob is controlled by alice and bob: alice alone fails; bob cannot see it; both succeed
    const give = (actAs: string[]) =>
      submit(ledger, actAs, [{ kind: 'exercise', target: Iou, cid, choice: 'Give', arg: { to: bob } }]);
    expect((await refusal(give([alice]))).code).toBe('DAML_AUTHORIZATION_ERROR');
    expect((await refusal(give([bob]))).code).toBe('CONTRACT_NOT_FOUND'); // bob cannot even see it
    await give([alice, bob]);
    expect((await refusal(give([alice, bob]))).cause).toContain(cid);
    expect(ledger.active(cid)).toBeUndefined();
  });

  it('uses a contract the submitters cannot see only when it is disclosed, with its exact blob', async () => {
    const ledger = open();
    const theirs = (await submit(ledger, [bank, bob], [create({ issuer: bank, owner: bob, amount: '7' })]))
      .nodes[0]!.cid;
    const mine = (await submit(ledger, [bank, alice], [create({ issuer: bank, owner: alice, amount: '1' })]))
      .nodes[0]!.cid;
    const peek = (disclosed: Array<{ createdEventBlob: string; contractId?: string }>) =>
      submit(
        ledger,
        [alice],
        [{ kind: 'exercise', target: Iou, cid: mine, choice: 'Peek', arg: { other: theirs } }],
        { disclosed },
      );
    expect((await refusal(peek([]))).code).toBe('CONTRACT_NOT_FOUND');
    const blob = ledger.blob(ledger.active(theirs)!);
    const ok = await peek([{ createdEventBlob: blob, contractId: theirs }]);
    expect(ok.nodes[0]).toMatchObject({ k: 'e', res: { amount: '7.0000000000' } });
    const forged = Buffer.from(
      Buffer.from(blob, 'base64').toString().replace('7.0000000000', '9.0000000000'),
    ).toString('base64');
    expect((await refusal(peek([{ createdEventBlob: forged }]))).code).toBe('INVALID_ARGUMENT');
    expect((await refusal(peek([{ createdEventBlob: blob, contractId: mine }]))).code).toBe(
      'INVALID_ARGUMENT',
    );
  });

  it('is atomic: a failing command leaves nothing of the others; an unknown party is an unknown informee', async () => {
    const ledger = open();
    const end = ledger.end;
    const refused = await refusal(
      submit(
        ledger,
        [bank, alice],
        [
          create({ issuer: bank, owner: alice, amount: '1' }),
          create({ issuer: bank, owner: carol, amount: '1' }),
        ],
      ),
    );
    expect(refused.code).toBe('DAML_AUTHORIZATION_ERROR');
    expect(ledger.end).toBe(end);
    expect([...ledger.contractsOf(alice)]).toEqual([]);
    // carol is known to no participant: the transaction names an unknown informee (in-process, no hosting check)
    const forCarol = [create({ issuer: bank, owner: carol, amount: '1' })];
    expect((await refusal(submit(ledger, [bank, carol], forCarol, { internal: true }))).code).toBe(
      'UNKNOWN_INFORMEES',
    );
    expect((await refusal(submit(ledger, [bank, carol], forCarol))).code).toBe(
      'NO_SYNCHRONIZER_ON_WHICH_ALL_SUBMITTERS_CAN_SUBMIT',
    );
    expect(
      (await refusal(submit(ledger, [bank, alice], [create({ issuer: bank, owner: alice, amount: '1e-3' })])))
        .code,
    ).toBe('COMMAND_PREPROCESSING_FAILED');
  });

  it('deduplicates by user, actAs and command id; an in-flight submission locks what it consumes', async () => {
    const ledger = open();
    const first = await submit(ledger, [bank, alice], [create({ issuer: bank, owner: alice, amount: '1' })], {
      commandId: 'same',
    });
    expect(
      (
        await refusal(
          submit(ledger, [alice, bank], [create({ issuer: bank, owner: alice, amount: '1' })], {
            commandId: 'same',
          }),
        )
      ).code,
    ).toBe('DUPLICATE_COMMAND');
    // another user with the same command id is another change
    await submit(ledger, [bank, alice], [create({ issuer: bank, owner: alice, amount: '1' })], {
      commandId: 'same',
      userId: 'other',
    });
    const cid = first.nodes[0]!.cid;
    const give = (commandId: string) =>
      submit(
        ledger,
        [alice, bob],
        [{ kind: 'exercise', target: Iou, cid, choice: 'Give', arg: { to: bob } }],
        { latencyMs: 100, commandId },
      );
    const slow = give('g1');
    expect((await refusal(give('g2'))).code).toBe('LOCAL_VERDICT_LOCKED_CONTRACTS');
    await slow;
    expect((await refusal(give('g3'))).code).toBe('CONTRACT_NOT_FOUND');
  });

  it('refuses a committed command id for its maximum deduplication duration only; 0 never refuses, in flight still does', async () => {
    const iou = (): Command[] => [create({ issuer: bank, owner: alice, amount: '1' })];
    const none = open(undefined, undefined, 0);
    await submit(none, [bank, alice], iou(), { commandId: 'again' });
    await submit(none, [bank, alice], iou(), { commandId: 'again' });
    expect([...none.contractsOf(alice)]).toHaveLength(2);
    const slow = submit(none, [bank, alice], iou(), { commandId: 'slow', latencyMs: 100 });
    expect((await refusal(submit(none, [bank, alice], iou(), { commandId: 'slow' }))).code).toBe(
      'SUBMISSION_ALREADY_IN_FLIGHT',
    );
    await slow;
    // 50 ms: refused within it, also when the submission asks for a longer period or an older offset
    const short = open(undefined, undefined, 50_000);
    await submit(short, [bank, alice], iou(), { commandId: 'k' });
    expect((await refusal(submit(short, [bank, alice], iou(), { commandId: 'k' }))).code).toBe(
      'DUPLICATE_COMMAND',
    );
    await new Promise((resolve) => setTimeout(resolve, 80));
    await submit(short, [bank, alice], iou(), {
      commandId: 'k',
      deduplication: { kind: 'offset', offset: 0 },
    });
    await submit(short, [bank, alice], iou(), {
      commandId: 'k2',
      deduplication: { kind: 'duration', micros: 3_600_000_000 },
    });
    await new Promise((resolve) => setTimeout(resolve, 80));
    await submit(short, [bank, alice], iou(), {
      commandId: 'k2',
      deduplication: { kind: 'duration', micros: 3_600_000_000 },
    });
  });

  it('prunes the history of dropped log segments; contracts and deduplication survive a restart from a snapshot', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lb-ledger-'));
    const ledger = open(dir, 3);
    for (let i = 0; i < 12; i++)
      await submit(ledger, [bank, alice], [create({ issuer: bank, owner: alice, amount: String(i + 1) })], {
        commandId: `k${i}`,
      });
    expect(ledger.pruned).toBeGreaterThan(0);
    expect(() => ledger.entriesAfter(0)).toThrow(/PARTICIPANT_PRUNED_DATA_ACCESSED|pruning offset/);
    const kept = ledger.entriesAfter(ledger.pruned);
    expect(kept.at(-1)?.o).toBe(ledger.end);
    expect(kept[0]?.o).toBe(ledger.pruned + 1);
    const end = ledger.end;
    ledger.close();
    const again = open(dir, 3);
    expect(again.end).toBe(end);
    expect([...again.contractsOf(alice)]).toHaveLength(12);
    expect(again.pruned).toBe(ledger.pruned);
    expect(
      (
        await refusal(
          submit(again, [bank, alice], [create({ issuer: bank, owner: alice, amount: '1' })], {
            commandId: 'k0',
          }),
        )
      ).code,
    ).toBe('DUPLICATE_COMMAND');
    // an ACS older than what memory holds is refused as pruned
    expect(() => again.activeAt(1, [alice])).toThrow(LedgerError);
  });
});

/**
 * What the token e2e tests share: a sandbox started in the test, a target file that also names receivers the test
 * acts as, CLI runs against it with their own state dir, recipients files written in the test, and reads of the
 * outcome through the participants' own JSON Ledger API and the sandbox's request counters (never through
 * ledgerbook's journal or output).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Decimal } from 'decimal.js';
import { parse, stringify } from 'yaml';
import type { SandboxOptions } from '@ledgerbook/sandbox';
import { requestCounts, startWorld, type World } from '@ledgerbook/sandbox/testing';
import {
  HOLDING_INTERFACE,
  TRANSFER_INSTRUCTION,
  cumulative,
  tokenWorld,
  walletFor,
  wsRequest,
  type HoldingView,
  type TokenWorld,
  type TransactionBody,
  type Wallet,
} from '@ledgerbook/sandbox/testing';
import { CLI, cli, collect, spawnCli, tempDir, type CliResult } from './cli.js';

export const PLAYBOOKS = resolve(import.meta.dirname, '../../playbooks');
export const SUBMIT = '/v2/commands/submit-and-wait-for-transaction';
const EXECUTED_TRANSFER = '#utility-registry-v0:Utility.Registry.V0.Holding.Transfer:ExecutedTransfer';

export interface Offer {
  contractId: string;
  sender: string;
  receiver: string;
  amount: string;
  meta: Record<string, string>;
}

export interface TokenSandbox {
  world: World;
  tokens: TokenWorld;
  dir: string;
  targetFile: string;
  stateDir: string;
  /** target party names of the receivers the target acts as (`r002` for holder-002 …) */
  receiverName(party: string): string;
  run(playbook: string, ...args: string[]): Promise<CliResult>;
  spawn(playbook: string, ...args: string[]): { child: ChildProcess; done: Promise<CliResult> };
  /** a run in a pseudo-terminal of 120 columns, as a person watches it: the text it drew, escapes removed */
  runInTerminal(playbook: string, ...args: string[]): Promise<{ code: number | null; screen: string }>;
  /** a run with a state dir of its own: another machine's runner, or one whose state was lost */
  runAt(stateDir: string, playbook: string, ...args: string[]): Promise<CliResult>;
  spawnAt(
    stateDir: string,
    playbook: string,
    ...args: string[]
  ): { child: ChildProcess; done: Promise<CliResult> };
  playbook(name: string, text: string): Promise<string>;
  /** a recipients file in the test's folder */
  recipients(name: string, lines: ReadonlyArray<readonly [string, string, string?]>): Promise<string>;
  wallet(party: string): Wallet;
  /** the pending offers a party sent, from the ledger */
  offersFrom(party: string): Promise<Offer[]>;
  /** the registry's records of settled transfers a party sent */
  settledFrom(party: string): Promise<Offer[]>;
  /** a party's unlocked and locked holdings of the world's CBTC */
  holdings(
    party: string,
  ): Promise<{ unlocked: string[]; locked: string[]; spendable: Decimal; lockedTotal: Decimal }>;
  /** submissions the participants received so far */
  submissions(): Promise<number>;
  /**
   * The command id of the transaction that created each of the party's transfer offers, by offer, from the
   * party's own update stream (a submitting party sees its command ids)
   */
  offerCommands(party: string): Promise<Map<string, string>>;
  /** the completions of the party's commands after an offset, as its node's operator user sees them */
  completions(
    party: string,
    after: number,
  ): Promise<Array<{ commandId: string; submissionId: string; code: number }>>;
  stop(): Promise<void>;
}

/** A sandbox and a target naming `parties.r<NNN>` for each holder-NNN, so a test can act as any receiver. */
export async function tokenSandbox(options: Partial<SandboxOptions> = {}): Promise<TokenSandbox> {
  const world = await startWorld(options);
  const tokens = await tokenWorld(world);
  const dir = await tempDir('lb-token-');
  const target = parse(world.sandbox.targetYaml()) as { parties: Record<string, unknown> };
  const names = new Map<string, string>();
  for (const holder of tokens.holders) {
    const name = `r${holder.slice('holder-'.length, holder.indexOf('::'))}`;
    names.set(holder, name);
    target.parties[name] = { party: holder, node: `node${tokens.nodeOf(holder) + 1}` };
  }
  const targetFile = join(dir, 'target.yaml');
  await writeFile(targetFile, stringify(target));
  const stateDir = join(dir, 'state');
  const args = (playbook: string, extra: string[], state = stateDir): string[] => [
    'run',
    playbook,
    '--target',
    targetFile,
    '--state-dir',
    state,
    ...extra,
  ];
  const instructionViews = async (party: string) =>
    (await walletFor(world, tokens, party).acsWs({ interface: TRANSFER_INSTRUCTION }))
      .map((e) => e.contractEntry.JsActiveContract.createdEvent)
      .map((ev) => ({ ev, view: ev.interfaceViews?.[0]?.viewValue }));
  return {
    world,
    tokens,
    dir,
    targetFile,
    stateDir,
    receiverName(party) {
      const name = names.get(party);
      if (name === undefined) throw new Error(`${party} is no holder of the world`);
      return name;
    },
    run: (playbook, ...extra) => cli(args(playbook, extra), { cwd: dir, timeoutMs: 240_000 }),
    spawn(playbook, ...extra) {
      const child = spawnCli(args(playbook, extra), { cwd: dir });
      return { child, done: collect(child, 240_000) };
    },
    async runInTerminal(playbook, ...extra) {
      const command = ['stty cols 120 rows 50;', 'exec', process.execPath, CLI, ...args(playbook, extra)]
        .map((part, i) => (i < 2 ? part : `'${part.replaceAll("'", "'\\''")}'`))
        .join(' ');
      const env: NodeJS.ProcessEnv = { ...process.env, TERM: 'xterm' };
      delete env['CI'];
      delete env['NO_COLOR'];
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        cwd: dir,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let raw = '';
      child.stdout.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      const code = await new Promise<number | null>((done) => child.on('close', done));
      // eslint-disable-next-line no-control-regex
      return { code, screen: raw.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replaceAll('\r', '\n') };
    },
    runAt: (state, playbook, ...extra) => cli(args(playbook, extra, state), { cwd: dir, timeoutMs: 240_000 }),
    spawnAt(state, playbook, ...extra) {
      const child = spawnCli(args(playbook, extra, state), { cwd: dir });
      return { child, done: collect(child, 240_000) };
    },
    async playbook(name, text) {
      const file = join(dir, name);
      await writeFile(file, text);
      return file;
    },
    async recipients(name, lines) {
      const file = join(dir, name);
      const header = lines.some((l) => l[2] !== undefined) ? 'receiver,amount,reference' : 'receiver,amount';
      const body = lines.map(([r, a, ref]) => (ref === undefined ? `${r},${a}` : `${r},${a},${ref}`));
      await writeFile(file, `${[header, ...body].join('\n')}\n`);
      return file;
    },
    wallet: (party) => walletFor(world, tokens, party),
    async offersFrom(party) {
      return (await instructionViews(party))
        .map(({ ev, view }) => {
          const transfer = view?.['transfer'] as Record<string, unknown>;
          return {
            contractId: ev.contractId,
            sender: transfer['sender'] as string,
            receiver: transfer['receiver'] as string,
            amount: transfer['amount'] as string,
            meta: (transfer['meta'] as { values: Record<string, string> }).values,
          };
        })
        .filter((o) => o.sender === party);
    },
    async settledFrom(party) {
      return (await walletFor(world, tokens, party).acsWs({ template: EXECUTED_TRANSFER }))
        .map((e) => e.contractEntry.JsActiveContract.createdEvent)
        .map((ev) => {
          const a = ev.createArgument as Record<string, unknown>;
          return {
            contractId: ev.contractId,
            sender: a['sender'] as string,
            receiver: a['receiver'] as string,
            amount: a['amount'] as string,
            meta: (a['meta'] as { values: Record<string, string> }).values,
          };
        })
        .filter((o) => o.sender === party);
    },
    async holdings(party) {
      const views = (await walletFor(world, tokens, party).acsWs({ interface: HOLDING_INTERFACE }))
        .map((e) => e.contractEntry.JsActiveContract.createdEvent.interfaceViews?.[0]?.viewValue)
        .map((v) => v as unknown as HoldingView)
        .filter(
          (v) =>
            v.owner === party &&
            v.instrumentId.admin === tokens.instrument.admin &&
            v.instrumentId.id === tokens.instrument.id,
        );
      const unlocked = views.filter((v) => v.lock === null).map((v) => v.amount);
      const locked = views.filter((v) => v.lock !== null).map((v) => v.amount);
      const sum = (list: string[]) => list.reduce((s, a) => s.plus(a), new Decimal(0));
      return { unlocked, locked, spendable: sum(unlocked), lockedTotal: sum(locked) };
    },
    async submissions() {
      return (await requestCounts(world))
        .filter((r) => r.method === 'POST' && r.route === SUBMIT)
        .reduce((n, r) => n + r.count, 0);
    },
    async offerCommands(party) {
      const wallet = walletFor(world, tokens, party);
      const end = await wallet.ledgerEnd();
      const frames = await wsRequest(wallet.ledger.base, '/v2/updates', await wallet.token(), {
        beginExclusive: 0,
        endInclusive: end,
        updateFormat: {
          includeTransactions: {
            eventFormat: {
              filtersByParty: { [party]: { cumulative: [cumulative({ interface: TRANSFER_INSTRUCTION })] } },
              verbose: false,
            },
            transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
          },
        },
      });
      const commands = new Map<string, string>();
      for (const frame of frames) {
        const tx = (frame as { update?: { Transaction?: { value: TransactionBody['transaction'] } } }).update
          ?.Transaction?.value;
        for (const event of tx?.events ?? [])
          if (event.CreatedEvent !== undefined)
            commands.set(event.CreatedEvent.contractId, tx?.commandId ?? '');
      }
      return commands;
    },
    async completions(party, after) {
      const wallet = walletFor(world, tokens, party);
      const response = await wallet.ledger.post<
        Array<{
          completionResponse?: {
            Completion?: { value: { commandId: string; submissionId?: string; status?: { code: number } } };
          };
        }>
      >('/v2/commands/completions?stream_idle_timeout_ms=300', { parties: [party], beginExclusive: after });
      if (response.status !== 200) throw new Error(`completions ${response.status}: ${response.text}`);
      return response.body.flatMap((e) => {
        const c = e.completionResponse?.Completion?.value;
        return c === undefined
          ? []
          : [{ commandId: c.commandId, submissionId: c.submissionId ?? '', code: c.status?.code ?? 0 }];
      });
    },
    stop: () => world.stop(),
  };
}

/** Each receiver's offers from a sender of one distribution: receiver → amounts (a receiver with two is a double payment). */
export function byReceiver(offers: readonly Offer[], distribution: string): Map<string, string[]> {
  const result = new Map<string, string[]>();
  for (const o of offers) {
    if (o.meta['ledgerbook.dev/distribution'] !== distribution) continue;
    result.set(o.receiver, [...(result.get(o.receiver) ?? []), o.amount]);
  }
  return result;
}

export interface RecipientLine {
  receiver: string;
  amount: string;
  reference: string;
}

/** The lines of playbooks/examples/recipients.csv (the file the quickstart distributes to), header left out. */
export async function shippedRecipients(): Promise<RecipientLine[]> {
  const text = await readFile(join(PLAYBOOKS, 'examples', 'recipients.csv'), 'utf8');
  return text
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => {
      const [receiver = '', amount = '', reference = ''] = line.split(',');
      return { receiver, amount, reference };
    });
}

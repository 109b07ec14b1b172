/**
 * A running sandbox driven through the typed clients, as a run's steps drive a network: the sandbox is started
 * in-process on free ports, its written target is validated like any target file, and `createClients` builds the
 * clients from that target and the sandbox's secrets. The sandbox's admin API (faults, capacity, parties) is
 * reached over plain HTTP, as a test harness does; the scenarios themselves go through the clients only.
 */
import { expect } from 'vitest';
import { parse, stringify } from 'yaml';
import { compareAmounts } from '../../src/clients/amount.js';
import { createClients } from '../../src/clients/factory.js';
import type { Clients } from '../../src/clients/clients.js';
import type { PartyLedger } from '../../src/clients/party-ledger.js';
import { transferOf, type TransferSpec } from '../../src/clients/token-commands.js';
import { actOnTransferInstruction, sendTransfer, type TransferSent } from '../../src/clients/token-flows.js';
import type { InstrumentId } from '../../src/clients/token-wire.js';
import { parseSource } from '../../src/validation/load.js';
import type { Target } from '../../src/playbook/target.js';
import { validateTarget } from '../../src/validation/target-load.js';
import type { SandboxOptions } from '@ledgerbook/sandbox';
import { startWorld, waitFor, type Api, type World } from '@ledgerbook/sandbox/testing';

export interface ClientWorld {
  world: World;
  /** the sandbox's admin API (faults, capacity, parties) */
  admin: Api;
  target: Target;
  clients: Clients;
  instrument: InstrumentId;
  /** every access token the clients obtained (what a run's masker would be handed) */
  tokens: Set<string>;
  /**
   * The target's name of world holder `index` (0-based: `holder-001` is 0), declared as a party to act as through
   * the node hosting it. Each scenario takes holders of its own, so scenarios do not see each other's holdings.
   */
  holder(index: number): string;
  /** a party id of the target, by name */
  partyId(name: string): string;
  /** the node a party the target acts as is hosted on */
  nodeOf(name: string): string;
  stop(): Promise<void>;
}

/** How many world holders the target declares (`holder-001` … ). */
const DECLARED_HOLDERS = 80;

export async function startClientWorld(options: Partial<SandboxOptions> = {}): Promise<ClientWorld> {
  const world = await startWorld(options);
  const sandbox = world.sandbox;
  try {
    const written = parse(sandbox.targetYaml()) as { parties: Record<string, unknown> };
    const holderNames: string[] = [];
    sandbox.world.holders.slice(0, DECLARED_HOLDERS).forEach((party, i) => {
      const name = `holder${i + 1}`;
      holderNames.push(name);
      written.parties[name] = { party, node: sandbox.world.hostOf.get(party) ?? 'node1' };
    });
    const { doc, diagnostics } = parseSource('<sandbox target>', stringify(written));
    const checked = validateTarget(doc);
    const problems = [...diagnostics, ...checked.diagnostics];
    if (problems.length > 0 || checked.target === undefined)
      throw new Error(`the sandbox's target does not validate: ${JSON.stringify(problems)}`);
    const target: Target = { ...checked.target, file: undefined };
    const tokens = new Set<string>();
    const clients = createClients({
      target,
      secrets: sandbox.secrets(),
      onToken: (token) => tokens.add(token),
    });
    const instrument = target.instrument;
    if (instrument === undefined) throw new Error('the sandbox target names no instrument');
    return {
      world,
      admin: world.admin,
      target,
      clients,
      instrument: { admin: instrument.admin, id: instrument.id },
      tokens,
      holder: (index) => {
        const name = holderNames[index];
        if (name === undefined)
          throw new Error(`the target declares holders 0..${DECLARED_HOLDERS - 1} only`);
        return name;
      },
      partyId: (name) => {
        const declared = target.parties?.[name];
        if (declared === undefined) throw new Error(`the target has no party ${name}`);
        return typeof declared === 'string' ? declared : declared.party;
      },
      nodeOf: (name) => {
        const declared = target.parties?.[name];
        if (declared === undefined || typeof declared === 'string')
          throw new Error(`the target does not act as ${name}`);
        return declared.node;
      },
      stop: async () => {
        await clients.close();
        await world.stop();
      },
    };
  } catch (error) {
    await world.stop();
    throw error;
  }
}

/**
 * Fails when an error a client threw carries an access token or the sandbox's password anywhere: its message,
 * hint, service message or body.
 */
export function expectNoSecrets(cw: ClientWorld, error: unknown): void {
  const e = error as { message?: unknown; hint?: unknown; serviceMessage?: unknown; body?: unknown };
  const text = JSON.stringify([String(e.message), e.hint, e.serviceMessage, e.body]);
  const secrets = [...cw.tokens, ...Object.values(cw.world.sandbox.secrets())];
  if (cw.tokens.size === 0) throw new Error('the clients obtained no token: nothing to look for');
  for (const secret of secrets) if (text.includes(secret)) throw new Error('an error carries a secret');
}

/** Adds a fault through the admin API (`packages/sandbox/README.md`, Faults). */
export async function injectFault(admin: Api, spec: Record<string, unknown>): Promise<void> {
  const response = await admin.post('/faults', spec);
  if (response.status !== 201) throw new Error(`POST /faults ${response.status}: ${response.text}`);
}

/** Polls until `probe` returns a value (not undefined or false), failing with `what` after the deadline. */
export function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  return waitFor(what, probe, timeoutMs, 50);
}

/** A moment `offsetMs` from now. */
export function at(offsetMs: number): Date {
  return new Date(Date.now() + offsetMs);
}

/** A new command id for each submission, `<prefix>-<label>-<n>` (each file's sandbox is its own). */
export function commandIds(prefix: string): (label: string) => string {
  let count = 0;
  return (label) => `${prefix}-${label}-${(count += 1)}`;
}

/** Amounts compare by value: the ledger writes "1.0000000000", a sum "1". */
export function expectAmounts(actual: readonly string[], expected: readonly string[]): void {
  expect(
    actual.map((a, i) => compareAmounts(a, expected[i] ?? 'NaN')),
    actual.join(', '),
  ).toEqual(expected.map(() => 0));
}

/** A transfer of `amount` spending every unlocked holding the sender has now, as the flows build it. */
export async function transferSpec(
  cw: ClientWorld,
  sender: PartyLedger,
  receiver: string,
  amount: string,
  options: Partial<TransferSpec> = {},
): Promise<TransferSpec> {
  const inputs = (await sender.holdings(cw.instrument)).unlocked.map((h) => h.contractId);
  return {
    sender: sender.party,
    receiver,
    amount,
    instrument: cw.instrument,
    requestedAt: at(-60_000),
    executeBefore: at(168 * 3600_000),
    inputHoldingCids: inputs,
    ...options,
  };
}

/** The offer a transfer left pending (it fails the test when the transfer settled otherwise). */
export function pendingOffer(sent: TransferSent): string {
  expect(sent.transferKind).toBe('offer');
  const outcome = sent.result?.outcome;
  if (outcome?.status !== 'pending')
    throw new Error(`expected a pending offer, got ${JSON.stringify(outcome)}`);
  return outcome.transferInstructionCid;
}

/** Funds a party from the minter's holdings: an offer the party accepts. */
export async function fund(
  cw: ClientWorld,
  name: string,
  amount: string,
  commandId: (label: string) => string,
): Promise<PartyLedger> {
  const minter = cw.clients.party('minter');
  const holder = cw.clients.party(name);
  const transfer = transferOf(await transferSpec(cw, minter, holder.party, amount));
  const sent = await sendTransfer(minter, cw.clients.registry(), transfer, { commandId: commandId('fund') });
  await actOnTransferInstruction(holder, cw.clients.registry(), 'accept', pendingOffer(sent), {
    commandId: commandId('fund-accept'),
  });
  return holder;
}

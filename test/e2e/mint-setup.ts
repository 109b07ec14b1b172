/**
 * What the mint, redeem and settlement e2e tests share: a sandbox with its target file (party-setup's
 * partyWorld), wallets that read the ledger as the world's parties, the sandbox's chain, and counts of what was
 * sent (ledger submissions, BTC payments, faucet requests) from the sandbox's own request log.
 */
import { Decimal } from 'decimal.js';
import { expect } from 'vitest';
import { Api, requestCounts, type World } from '@ledgerbook/sandbox/testing';
import {
  tokenWorld,
  walletFor,
  type ActiveContractEntry,
  type CreatedEvent,
  type Filter,
  type TokenWorld,
  type Wallet,
} from '@ledgerbook/sandbox/testing';
import type { CliResult } from './cli.js';
import { partyWorld, type PartyWorld } from './party-setup.js';

export interface MintWorld extends PartyWorld {
  tokens: TokenWorld;
  minter: Wallet;
  chain: Api;
  /** ledger submissions, BTC payments and faucet requests since the sandbox started (or the last reset) */
  sends(): Promise<number>;
  /** requests that changed something, by `node METHOD route`, for failure messages */
  sent(): Promise<Record<string, number>>;
  wallet(party: string): Wallet;
}

const SENDING = new Set([
  'POST /v2/commands/submit-and-wait-for-transaction',
  'POST /send',
  'POST /api/faucet',
  'POST /mine',
]);

export async function mintWorld(options: Parameters<typeof partyWorld>[0] = {}): Promise<MintWorld> {
  const w = await partyWorld(options);
  const tokens = await tokenWorld(w.world);
  const sent = async (): Promise<Record<string, number>> => {
    const counts = await requestCounts(w.world);
    const found: Record<string, number> = {};
    for (const c of counts)
      if (SENDING.has(`${c.method} ${c.route}`)) found[`${c.node} ${c.method} ${c.route}`] = c.count;
    return found;
  };
  return {
    ...w,
    tokens,
    minter: walletFor(w.world, tokens, tokens.minter),
    chain: new Api(w.world.sandbox.urls.bitcoin, () => Promise.resolve(undefined)),
    sent,
    sends: async () => Object.values(await sent()).reduce((n, c) => n + c, 0),
    wallet: (party) => walletFor(w.world, tokens, party),
  };
}

/** The created events of the active contracts a wallet sees through a filter, its own (by a payload field). */
export async function contracts(
  wallet: Wallet,
  filter: Filter,
  ownerField?: string,
): Promise<CreatedEvent[]> {
  const entries: ActiveContractEntry[] = await wallet.acs(filter);
  return entries
    .map((e) => e.contractEntry.JsActiveContract.createdEvent)
    .filter((e) => ownerField === undefined || e.createArgument?.[ownerField] === wallet.party);
}

export async function balance(world: MintWorld, wallet: Wallet): Promise<Decimal> {
  return new Decimal(await wallet.balance(world.tokens.instrument));
}

export async function addFault(world: World, fault: unknown): Promise<void> {
  const response = await world.admin.post('/faults', fault);
  expect(response.status, response.text).toBe(201);
}

export async function clearFaults(world: World): Promise<void> {
  await world.admin.call('DELETE', '/faults');
}

export function expectExit(result: CliResult, code: number): void {
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(code);
}

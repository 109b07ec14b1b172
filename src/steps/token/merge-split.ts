/**
 * Self-transfers (`transferKind: self`, wrapped-api.md §8.16–§8.17): a party's holdings merged into one, or one
 * amount split off. They move no value between parties, so the worst a repeated one does is merge or split again;
 * each is still planned from holdings read just before it and submitted under a command id derived from its input
 * holdings, which the participant refuses to run twice.
 */
import { AmountDecimal } from '../../clients/amount.js';
import type { PartyLedger } from '../../clients/party-ledger.js';
import type { RegistryClient } from '../../clients/registry.js';
import { transferOf } from '../../clients/token-commands.js';
import { sendTransfer } from '../../clients/token-flows.js';
import { META_KEYS, type InstrumentId } from '../../clients/token-wire.js';
import { StepError } from '../../errors.js';
import type { Clock, JsonValue } from '../contract.js';

/** A self-transfer's offer expiry (it settles at once; the reference's flows use five hours). */
const SELF_TRANSFER_MS = 5 * 3_600_000;

export interface SelfTransfer {
  /** the holding of `amount` it created */
  holding: string;
  /** the change, when the inputs held more */
  change: string[];
  updateId: string;
}

export interface SelfTransferContext {
  sender: PartyLedger;
  registry: RegistryClient;
  instrument: InstrumentId;
  clock: Clock;
  signal: AbortSignal;
  /**
   * the engine's command id of the step's effect `purpose` with `inputs` (`ctx.commandId`), at step level: a
   * self-transfer belongs to no item, whichever item makes it
   */
  commandId(purpose: string, inputs: JsonValue): string;
}

/** One merge-split self-transfer of `amount` from `inputs`; `why` is its reason in the metadata. */
export async function selfTransfer(
  ctx: SelfTransferContext,
  inputs: readonly string[],
  amount: string,
  why: string,
): Promise<SelfTransfer> {
  const now = ctx.clock.now();
  const commandId = ctx.commandId('merge-split', { inputs: [...inputs].sort(), amount });
  const sent = await sendTransfer(
    ctx.sender,
    ctx.registry,
    transferOf({
      sender: ctx.sender.party,
      receiver: ctx.sender.party,
      amount,
      instrument: ctx.instrument,
      requestedAt: new Date(now),
      executeBefore: new Date(now + SELF_TRANSFER_MS),
      inputHoldingCids: inputs,
      meta: { [META_KEYS.reason]: why, [META_KEYS.txKind]: 'merge-split' },
    }),
    { commandId, signal: ctx.signal },
  );
  const outcome = sent.result?.outcome;
  const holding = outcome?.status === 'completed' ? outcome.receiverHoldingCids[0] : undefined;
  if (holding === undefined) {
    throw new StepError(
      `the self-transfer ${commandId} did not settle at once (${outcome?.status ?? 'no result'}, kind ${sent.transferKind ?? 'unknown'})`,
      {
        hint: 'the registry should treat a transfer to oneself as `self`: check the instrument and the registry',
      },
    );
  }
  return { holding, change: sent.result?.senderChangeCids ?? [], updateId: sent.transaction.updateId };
}

/** The largest amount that halves `amount` at 10 fraction digits (rounded down). */
export function half(amount: AmountDecimal): AmountDecimal {
  return amount.dividedBy(2).toDecimalPlaces(10, AmountDecimal.ROUND_DOWN);
}

/**
 * Exactly once on the ledger: a command is submitted under its deterministic id (ctx.commandId) after its intent is
 * durable, and an answer that does not say whether it landed — a lost or timed-out response, `DUPLICATE_COMMAND` —
 * is settled by reading the ledger (the command's completion after the offset recorded with the intent, then its
 * transaction), never by a second command id. The same settlement serves `reconcile` after a crash.
 */
import { isLedgerError, type LedgerError } from '../../clients/ledger-errors.js';
import type { Transaction } from '../../clients/ledger-wire.js';
import type { PartyLedger } from '../../clients/party-ledger.js';
import { AmbiguousOutcomeError, StepError } from '../../errors.js';
import type { Intent, ItemContext, JsonValue, StepContext } from '../contract.js';

/** The intent recorded before a submission: what reconcile needs to find the command again. */
export interface SubmitIntent extends Intent {
  commandId: string;
  /** the acting party */
  party: string;
  /** the ledger end read just before the submission: the completion comes after it */
  offset: number;
}

export type Settlement =
  /** it landed: the transaction (undefined when the participant no longer shows it) */
  | { status: 'committed'; updateId: string | undefined; transaction: Transaction | undefined }
  /** the ledger refused it: nothing happened */
  | { status: 'rejected'; reason: string }
  /** no completion yet: it never arrived, or it is still in flight */
  | { status: 'unknown' };

export function isSubmitIntent(intent: Intent): intent is SubmitIntent {
  return (
    typeof intent['commandId'] === 'string' &&
    typeof intent['party'] === 'string' &&
    typeof intent['offset'] === 'number'
  );
}

/** How long an ambiguous answer is read for before the step gives up and says so (the command may be in flight). */
const SETTLE_POLLS_MS = [250, 500, 1000, 2000, 4000];

/**
 * Records the intent, then `send`s. An ambiguous answer is settled by reading the ledger: the transaction when it
 * landed, a StepError when the ledger refused it, an AmbiguousOutcomeError (exit 4) when it still cannot be told.
 */
export async function submitOnce(
  ctx: ItemContext,
  party: PartyLedger,
  intent: { action: string; commandId: string } & Record<string, JsonValue>,
  send: () => Promise<Transaction>,
): Promise<Transaction> {
  const offset = await party.ledger.ledgerEnd({ signal: ctx.signal });
  const recorded: SubmitIntent = { ...intent, party: party.party, offset };
  await ctx.record(recorded);
  try {
    return await send();
  } catch (error) {
    if (!isLedgerError(error) || error.retryability !== 'ambiguous') throw error;
    for (const pause of [0, ...SETTLE_POLLS_MS]) {
      if (pause > 0) await ctx.clock.sleep(pause, ctx.signal);
      const settled = await settle(ctx, party, recorded, completionOffsetOf(error));
      if (settled.status === 'committed') {
        if (settled.transaction) return settled.transaction;
        break;
      }
      if (settled.status === 'rejected') {
        throw new StepError(
          `${intent.action}: the ledger rejected command ${intent.commandId}: ${settled.reason}`,
          {
            hint: 'nothing happened on the ledger; fix the cause and run again',
          },
        );
      }
    }
    throw new AmbiguousOutcomeError(
      `${intent.action}: the outcome of command ${intent.commandId} cannot be told`,
      `${error.message}; no completion of the command after offset ${offset} yet`,
      'run the playbook again: it reads the ledger for this command id before anything is sent again',
    );
  }
}

/** The offset of the earlier landing a `DUPLICATE_COMMAND` names, when the participant says it. */
function completionOffsetOf(error: LedgerError): number | undefined {
  const value = error.canton?.context?.['completion_offset'];
  const offset = typeof value === 'string' ? Number(value) : typeof value === 'number' ? value : NaN;
  return Number.isSafeInteger(offset) && offset > 0 ? offset : undefined;
}

/**
 * Did the command of this intent land? Its completion after the intent's offset (or at the offset a duplicate
 * named), and when it did, its transaction.
 */
export async function settle(
  ctx: StepContext,
  party: PartyLedger,
  intent: SubmitIntent,
  knownOffset?: number,
): Promise<Settlement> {
  const options = { signal: ctx.signal };
  let completionOffset = knownOffset;
  let updateId: string | undefined;
  if (completionOffset === undefined) {
    const completion = await party.ledger.findCompletion(
      intent.commandId,
      { parties: [intent.party], beginExclusive: intent.offset },
      options,
    );
    if (completion === undefined) return { status: 'unknown' };
    const code = completion.status?.code ?? 0;
    if (code !== 0) return { status: 'rejected', reason: completion.status?.message ?? `gRPC code ${code}` };
    completionOffset = completion.offset;
    updateId = completion.updateId;
  }
  const from = completionOffset !== undefined ? completionOffset - 1 : intent.offset;
  const transactions = await party.ledger.transactions(
    {
      parties: [intent.party],
      beginExclusive: Math.max(0, from),
      ...(completionOffset !== undefined ? { endInclusive: completionOffset } : {}),
    },
    options,
  );
  const transaction = transactions.find((t) =>
    updateId !== undefined ? t.updateId === updateId : t.commandId === intent.commandId,
  );
  return { status: 'committed', updateId: updateId ?? transaction?.updateId, transaction };
}

/** The submit intents among an item's intents, latest last. */
export function submitIntents(intents: readonly Intent[], action?: string): SubmitIntent[] {
  return intents.filter(isSubmitIntent).filter((i) => action === undefined || i.action === action);
}

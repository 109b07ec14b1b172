/**
 * Reading a transaction of the token flows (LEDGER_EFFECTS shape, events in pre-order): the root exercises, the
 * `TransferInstructionResult` a transfer or an instruction choice returned, and the contracts it created. Absent
 * results are `undefined`, never guessed.
 */
import type { CreatedEvent, ExercisedEvent, Transaction } from './ledger-wire.js';
import { sameEntity, transferInstructionResultSchema } from './token-wire.js';
import { wireProblems } from './schema-check.js';

/** The outcome of a transfer: an offer the receiver must accept, settled at once, or failed (rejected, withdrawn). */
export type TransferOutcome =
  | { status: 'pending'; transferInstructionCid: string }
  | { status: 'completed'; receiverHoldingCids: string[] }
  | { status: 'failed' };

export interface TransferInstructionResult {
  /** the contract the choice was exercised on (factory or instruction) and the choice */
  contractId: string;
  choice: string;
  outcome: TransferOutcome;
  /** the sender's change (a transfer), or its returned holdings (a reject or withdraw) */
  senderChangeCids: string[];
  meta: Record<string, string>;
}

/** The exercises that are not consequences of another exercise, in order (one per command of the submission). */
export function rootExercises(transaction: Transaction): ExercisedEvent[] {
  const roots: ExercisedEvent[] = [];
  let coveredUntil = -1;
  for (const event of transaction.events) {
    const exercised = event.ExercisedEvent;
    const nodeId = (exercised ?? event.CreatedEvent ?? event.ArchivedEvent)?.nodeId;
    if (nodeId !== undefined && nodeId <= coveredUntil) continue;
    if (exercised === undefined) continue;
    roots.push(exercised);
    coveredUntil = exercised.lastDescendantNodeId ?? coveredUntil;
  }
  return roots;
}

function toResult(event: ExercisedEvent): TransferInstructionResult | undefined {
  if (wireProblems(transferInstructionResultSchema, event.exerciseResult).length > 0) return undefined;
  const result = event.exerciseResult as {
    output: {
      tag: string;
      value?: { transferInstructionCid?: string; receiverHoldingCids?: string[] } | null;
    };
    senderChangeCids?: string[];
    meta?: { values?: Record<string, string> };
  };
  const value = result.output.value ?? {};
  let outcome: TransferOutcome | undefined;
  switch (result.output.tag) {
    case 'TransferInstructionResult_Pending':
      if (value.transferInstructionCid !== undefined)
        outcome = { status: 'pending', transferInstructionCid: value.transferInstructionCid };
      break;
    case 'TransferInstructionResult_Completed':
      outcome = { status: 'completed', receiverHoldingCids: value.receiverHoldingCids ?? [] };
      break;
    default:
      outcome = { status: 'failed' };
  }
  if (outcome === undefined) return undefined;
  return {
    contractId: event.contractId,
    choice: event.choice,
    outcome,
    senderChangeCids: result.senderChangeCids ?? [],
    meta: result.meta?.values ?? {},
  };
}

/** The `TransferInstructionResult` of each root exercise that returned one (optionally of one choice), in order. */
export function transferInstructionResults(
  transaction: Transaction,
  choice?: string,
): TransferInstructionResult[] {
  return rootExercises(transaction)
    .filter((event) => choice === undefined || event.choice === choice)
    .flatMap((event) => {
      const result = toResult(event);
      return result === undefined ? [] : [result];
    });
}

/** The first root exercise's `TransferInstructionResult` (of `choice`), or undefined when there is none. */
export function transferInstructionResult(
  transaction: Transaction,
  choice?: string,
): TransferInstructionResult | undefined {
  return transferInstructionResults(transaction, choice)[0];
}

/** The contracts the transaction created of a template (either id form), in order. */
export function createdContracts(transaction: Transaction, templateId: string): CreatedEvent[] {
  return transaction.events.flatMap((event) => {
    const created = event.CreatedEvent;
    return created !== undefined && sameEntity(created.templateId, templateId) ? [created] : [];
  });
}

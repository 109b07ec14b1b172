import type { Transaction } from '../../clients/ledger-wire.js';
import type { Allocation } from '../../clients/party-ledger.js';
import type { AllocationChoice } from '../../clients/registry.js';
import { allocationCommand } from '../../clients/token-commands.js';
import { rootExercises } from '../../clients/token-results.js';
import { defineStep, type JsonValue, type Outputs, type StepContext } from '../contract.js';
import { StepError } from '../../errors.js';
import { instrumentOf, partyIdOf, short } from './common.js';
import { tokenSettleAllocationDeclaration, type With } from './settle-allocation.declaration.js';
import { settle, submitIntents, submitOnce } from './submit.js';

const ACTIONS = { execute: 'execute-transfer', withdraw: 'withdraw', cancel: 'cancel' } as const;
type Action = keyof typeof ACTIONS;

interface Observed {
  actAs: string[];
  allocation: Allocation | undefined;
  /** why it is settled already: archived on the ledger, or an earlier run's outputs */
  settled: Outputs | undefined;
}

function matches(w: With, a: Allocation): boolean {
  return w.allocation_cid !== undefined
    ? a.contractId === w.allocation_cid
    : a.settlementId === w.settlement_id && a.legId === w.leg_id;
}

async function observeAllocation(ctx: StepContext, w: With): Promise<Observed> {
  const party = ctx.clients.party(w.party);
  const actAs = [...new Set([party.party, ...(w.act_as ?? []).map((ref) => partyIdOf(ctx, ref))])];
  const all = await party.allocations(instrumentOf(ctx), { signal: ctx.signal });
  const allocation = all.find((a) => matches(w, a));
  if (allocation) return { actAs, allocation, settled: undefined };
  const previous = ctx.previous?.outputs;
  if (previous && typeof previous['allocation_cid'] === 'string')
    return { actAs, allocation, settled: previous };
  if (w.allocation_cid !== undefined) {
    const events = await party.ledger.eventsByContractId(w.allocation_cid, [party.party], {
      signal: ctx.signal,
    });
    if (events?.archived) {
      return {
        actAs,
        allocation,
        settled: {
          action: null,
          allocation_cid: w.allocation_cid,
          update_id: null,
          receiver_holding_cids: [],
          sender_holding_cids: [],
        },
      };
    }
  }
  return { actAs, allocation, settled: undefined };
}

function describe(w: With): string {
  return w.allocation_cid !== undefined
    ? `allocation ${short(w.allocation_cid)}`
    : `the allocation of settlement ${w.settlement_id ?? ''} leg ${w.leg_id ?? ''}`;
}

function outputs(action: Action, allocationCid: string, transaction: Transaction | undefined): Outputs {
  const result = transaction
    ? (rootExercises(transaction)[0]?.exerciseResult as
        { receiverHoldingCids?: unknown; senderHoldingCids?: unknown } | undefined)
    : undefined;
  const cids = (value: unknown): JsonValue[] =>
    Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  return {
    action,
    allocation_cid: allocationCid,
    update_id: transaction?.updateId ?? null,
    receiver_holding_cids: cids(result?.receiverHoldingCids),
    sender_holding_cids: cids(result?.senderHoldingCids),
  };
}

/**
 * token.settle-allocation: executes, withdraws or cancels an allocation with that choice's registry context,
 * acting as every party the choice needs, under a command id derived from the allocation and the action. In sync
 * when the allocation is no longer active (it was settled), as the ledger shows; after a crash the command's
 * completion says whether it landed.
 */
export const tokenSettleAllocation = defineStep<With, Observed>({
  ...tokenSettleAllocationDeclaration,
  observe: observeAllocation,
  plan(w, state) {
    if (state.allocation) {
      return {
        changes: [
          {
            action: w.action === 'execute' ? 'update' : 'delete',
            summary: `${w.action} ${describe(w)} (${state.allocation.amount} from ${short(state.allocation.sender)} to ${short(state.allocation.receiver)})`,
            details: { allocation_cid: state.allocation.contractId, action: w.action },
          },
        ],
      };
    }
    if (state.settled) return { changes: [], outputs: state.settled };
    throw new StepError(`${w.party} sees no active ${describe(w)}`, {
      hint: 'allocate the leg first (token.allocate), and check the settlement id, leg id or contract id',
    });
  },
  async apply(ctx, w, _item, _plan, state) {
    const allocation = state.allocation;
    if (!allocation) return state.settled ?? {};
    const party = ctx.clients.party(w.party);
    const choice: AllocationChoice = ACTIONS[w.action];
    const commandId = ctx.commandId(`allocation-${w.action}`, { allocation: allocation.contractId });
    const transaction = await submitOnce(
      ctx,
      party,
      { action: `allocation-${w.action}`, commandId, allocation_cid: allocation.contractId },
      async () => {
        const context = await ctx.clients
          .registry()
          .allocationContext(allocation.contractId, choice, { signal: ctx.signal });
        const prepared = allocationCommand(choice, allocation.contractId, context);
        return party.ledger.submitAndWaitForTransaction(
          {
            commandId,
            actAs: state.actAs,
            commands: prepared.commands,
            disclosedContracts: prepared.disclosedContracts,
          },
          { signal: ctx.signal },
        );
      },
    );
    return outputs(w.action, allocation.contractId, transaction);
  },
  async reconcile(ctx, w, _item, intents) {
    const last = submitIntents(intents, `allocation-${w.action}`).at(-1);
    if (last === undefined) return { status: 'not-done' };
    const settled = await settle(ctx, ctx.clients.party(w.party), last);
    if (settled.status === 'committed') {
      const cid = typeof last['allocation_cid'] === 'string' ? last['allocation_cid'] : '';
      return { status: 'done', outputs: outputs(w.action, cid, settled.transaction) };
    }
    return { status: 'not-done', note: settled.status === 'rejected' ? settled.reason : 'it did not land' };
  },
});

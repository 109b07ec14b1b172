import { compareAmounts } from '../../clients/amount.js';
import type { Transaction } from '../../clients/ledger-wire.js';
import type { Allocation, Holdings, PartyLedger } from '../../clients/party-ledger.js';
import { allocate } from '../../clients/token-flows.js';
import { rootExercises } from '../../clients/token-results.js';
import type { InstrumentId } from '../../clients/token-wire.js';
import { defineStep, type Outputs, type StepContext } from '../contract.js';
import { StepError } from '../../errors.js';
import { parseDuration } from '../../playbook/duration.js';
import { tokenAllocateDeclaration, type With } from './allocate.declaration.js';
import { instrumentOf, partyIdOf, requireAmount, selectTokens, unknownParties } from './common.js';
import { nodeOf, unknownPartyMessage } from './common.declaration.js';
import { settle, submitIntents, submitOnce } from './submit.js';

interface Observed {
  party: string;
  instrument: InstrumentId;
  /** the leg's allocation, when it is active */
  allocation: Allocation | undefined;
  /** an earlier run's allocation of this very leg (settled or withdrawn since), confirmed on the ledger */
  earlier: Outputs | undefined;
  holdings: Holdings;
}

function outputs(a: Allocation): Outputs {
  return {
    allocation_cid: a.contractId,
    settlement_id: a.settlementId,
    leg_id: a.legId,
    amount: a.amount,
    sender: a.sender,
    receiver: a.receiver,
    executor: a.executor,
    settle_before: a.settleBefore ?? null,
  };
}

async function findLeg(
  ctx: StepContext,
  party: PartyLedger,
  instrument: InstrumentId,
  w: With,
): Promise<Allocation | undefined> {
  const all = await party.allocations(instrument, { signal: ctx.signal });
  return all.find(
    (a) => a.settlementId === w.settlement_id && a.legId === w.leg_id && a.sender === party.party,
  );
}

async function earlierAllocation(ctx: StepContext, party: PartyLedger): Promise<Outputs | undefined> {
  const previous = ctx.previous?.outputs;
  const cid = previous?.['allocation_cid'];
  if (!previous || typeof cid !== 'string') return undefined;
  const events = await party.ledger.eventsByContractId(cid, [party.party], { signal: ctx.signal });
  return events?.created ? previous : undefined;
}

/** The allocation a transaction created (`AllocationInstructionResult_Completed {allocationCid}`). */
function allocationCidOf(transaction: Transaction): string | undefined {
  for (const root of rootExercises(transaction)) {
    const output = (root.exerciseResult as { output?: { tag?: string; value?: { allocationCid?: unknown } } })
      ?.output;
    if (typeof output?.value?.allocationCid === 'string') return output.value.allocationCid;
  }
  return undefined;
}

/**
 * token.allocate: in sync when the leg's allocation (same settlement id and leg id, this sender) is active, or an
 * earlier run's allocation of it is on the ledger. Otherwise `AllocationFactory_Allocate` with the sender's
 * holdings (balance checked before anything is sent), under a command id derived from the leg.
 */
export const tokenAllocate = defineStep<With, Observed>({
  ...tokenAllocateDeclaration,
  // the receiver and the executor must exist on the network before the sender's tokens are locked for them
  async verify(ctx, w) {
    const parties = { receiver: partyIdOf(ctx, w.receiver), executor: partyIdOf(ctx, w.executor) };
    const unknown = await unknownParties(ctx, w.party, Object.values(parties));
    return Object.entries(parties)
      .filter(([, party]) => unknown.has(party))
      .map(([field, party]) => ({
        pointer: `/${field}`,
        ...unknownPartyMessage(party, nodeOf(ctx.target, w.party)),
      }));
  },
  async observe(ctx, w) {
    requireAmount(w.amount, 'amount');
    const party = ctx.clients.party(w.party);
    const instrument = instrumentOf(ctx);
    const allocation = await findLeg(ctx, party, instrument, w);
    const earlier = allocation ? undefined : await earlierAllocation(ctx, party);
    const holdings = await party.holdings(instrument, { signal: ctx.signal });
    return { party: party.party, instrument, allocation, earlier, holdings };
  },
  plan(w, state) {
    if (state.allocation) return { changes: [], outputs: outputs(state.allocation) };
    if (state.earlier) return { changes: [], outputs: state.earlier };
    if (compareAmounts(state.holdings.unlockedTotal, w.amount) < 0) {
      throw new StepError(
        `${w.party} holds ${state.holdings.unlockedTotal} unlocked, less than the ${w.amount} to allocate`,
        { hint: 'allocate less, or wait until pending offers and allocations settle' },
      );
    }
    return {
      changes: [
        {
          action: 'create',
          summary: `allocate ${w.amount} from ${w.party} to ${w.receiver} for settlement ${w.settlement_id} leg ${w.leg_id} (executor ${w.executor})`,
          details: { settlement_id: w.settlement_id, leg_id: w.leg_id, amount: w.amount },
        },
      ],
    };
  },
  async apply(ctx, w, _item, _plan, state) {
    const party = ctx.clients.party(w.party);
    const receiver = partyIdOf(ctx, w.receiver);
    const executor = partyIdOf(ctx, w.executor);
    const tokens = selectTokens(state.holdings.unlocked, w.amount);
    if (tokens.length === 0) throw new StepError(`${w.party} holds too little to allocate ${w.amount}`);
    const now = ctx.clock.now();
    const at = (ms: number): string => new Date(now + ms).toISOString();
    const requestedAt = at(-1000);
    const commandId = ctx.commandId('allocate', {
      sender: state.party,
      receiver,
      executor,
      amount: w.amount,
      settlement: w.settlement_id,
      leg: w.leg_id,
    });
    const transaction = await submitOnce(
      ctx,
      party,
      { action: 'allocate', commandId, settlement_id: w.settlement_id, leg_id: w.leg_id },
      () =>
        allocate(
          party,
          ctx.clients.registry(),
          {
            requestedAt,
            inputHoldingCids: tokens.map((t) => t.contractId),
            allocation: {
              settlement: {
                executor,
                settlementRef: { id: w.settlement_id, cid: null },
                requestedAt,
                allocateBefore: at(parseDuration(w.allocate_before ?? '1h')),
                settleBefore: at(parseDuration(w.settle_before ?? '24h')),
                meta: { values: {} },
              },
              transferLegId: w.leg_id,
              transferLeg: {
                sender: state.party,
                receiver,
                amount: w.amount,
                instrumentId: state.instrument,
                meta: { values: {} },
              },
            },
          },
          { commandId, signal: ctx.signal },
        ),
    );
    const leg = await findLeg(ctx, party, state.instrument, w);
    if (leg) return outputs(leg);
    const cid = allocationCidOf(transaction);
    throw new StepError(
      `the allocation was submitted (${transaction.updateId}) but the ledger shows no active allocation of the leg${cid ? ` (${cid})` : ''}`,
      { hint: 'it may have been settled or withdrawn at once; run again to see the ledger’s state' },
    );
  },
  async reconcile(ctx, w, _item, intents) {
    const party = ctx.clients.party(w.party);
    const leg = await findLeg(ctx, party, instrumentOf(ctx), w);
    if (leg) return { status: 'done', outputs: outputs(leg) };
    const last = submitIntents(intents, 'allocate').at(-1);
    if (last === undefined) return { status: 'not-done' };
    const settled = await settle(ctx, party, last);
    if (settled.status === 'committed') {
      // it landed and has been settled or withdrawn since: the leg was allocated
      const cid = settled.transaction ? allocationCidOf(settled.transaction) : undefined;
      return {
        status: 'done',
        outputs: {
          allocation_cid: cid ?? null,
          settlement_id: w.settlement_id,
          leg_id: w.leg_id,
          amount: w.amount,
          sender: party.party,
          receiver: partyIdOf(ctx, w.receiver),
          executor: partyIdOf(ctx, w.executor),
          settle_before: null,
        },
      };
    }
    return {
      status: 'not-done',
      note: settled.status === 'rejected' ? settled.reason : 'the allocation did not land',
    };
  },
});

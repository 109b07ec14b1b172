/**
 * The registry's Holding (`utility-registry-holding-v0`, wrapped-api.md §5.1) and how choices spend holdings:
 * inputs must be the sender's own, unlocked, of the right instrument, distinct, and cover the amount; they are
 * archived, and the rest comes back as one change holding.
 */
import { Decimal } from 'decimal.js';
import { T } from '../ledger/lf.js';
import { type Contract, template } from '../ledger/model.js';
import type { ChoiceContext } from '../ledger/model.js';
import { HoldingI, type HoldingView } from './interfaces.js';
import { PKG } from './packages.js';
import { type InstrumentId, amount, dec } from './types.js';

export interface HoldingLock {
  lockers: { map: Array<[string, Record<string, never>]> };
  context: string;
  observers: { map: Array<[string, Record<string, never>]> };
}

export interface HoldingArg {
  operator: string;
  provider: string;
  registrar: string;
  owner: string;
  instrument: { source: string; id: string; scheme: string };
  label: string;
  amount: string;
  lock: HoldingLock | null;
}

const PartySetT = T.record('Set', { map: T.genmap(T.party, T.unit) });

export const Holding = template<HoldingArg>({
  pkg: PKG.registryHolding,
  name: { module: 'Utility.Registry.Holding.V0.Holding', entity: 'Holding' },
  argType: T.record('Holding', {
    operator: T.party,
    provider: T.party,
    registrar: T.party,
    owner: T.party,
    instrument: T.record('Instrument', { source: T.party, id: T.text, scheme: T.text }),
    label: T.text,
    amount: T.numeric,
    lock: T.optional(T.record('Lock', { lockers: PartySetT, context: T.text, observers: PartySetT })),
  }),
  signatories: (a) => [...new Set([a.registrar, a.owner])],
  observers: (a) => (a.lock === null ? [] : a.lock.observers.map.map(([p]) => p)),
  implements: [
    {
      iface: HoldingI,
      view: (a): HoldingView => ({
        owner: a.owner,
        instrumentId: { admin: a.instrument.source, id: a.instrument.id },
        amount: a.amount,
        lock:
          a.lock === null
            ? null
            : {
                holders: a.lock.lockers.map.map(([p]) => p),
                expiresAt: null,
                expiresAfter: null,
                context: a.lock.context,
              },
        meta: { values: {} },
      }),
      choices: {},
    },
  ],
});

/** the parties of the registry that issues an instrument */
export interface Registrar {
  operator: string;
  provider: string;
  registrar: string;
}

export function holdingArg(
  r: Registrar,
  owner: string,
  instrument: InstrumentId,
  value: Decimal,
  lock: HoldingLock | null = null,
): HoldingArg {
  return {
    operator: r.operator,
    provider: r.provider,
    registrar: r.registrar,
    owner,
    instrument: { source: instrument.admin, id: instrument.id, scheme: 'RegistrarInternalScheme' },
    label: '',
    amount: amount(value),
    lock,
  };
}

export function lockBy(holders: string[], context: string): HoldingLock {
  return { lockers: { map: holders.map((p) => [p, {}]) }, context, observers: { map: [] } };
}

export function instrumentOf(h: HoldingArg): InstrumentId {
  return { admin: h.instrument.source, id: h.instrument.id };
}

/**
 * Archives the input holdings (checked as the registry checks them) and returns their total. The caller's
 * authority must include the owner and the registrar.
 */
export function spendInputs(
  tx: ChoiceContext,
  inputs: string[],
  owner: string,
  instrument: InstrumentId,
  needed: Decimal,
): Decimal {
  tx.require(inputs.length > 0, 'inputHoldingCids must not be empty');
  tx.require(new Set(inputs).size === inputs.length, 'inputHoldingCids lists a holding twice');
  let total = new Decimal(0);
  for (const cid of inputs) {
    const holding: Contract<HoldingArg> = tx.fetch(cid, Holding, 'input holding');
    const h = holding.arg;
    tx.require(h.owner === owner, `input holding ${cid} is owned by ${h.owner}, not by the sender ${owner}`);
    tx.require(
      h.instrument.source === instrument.admin && h.instrument.id === instrument.id,
      `input holding ${cid} is of instrument ${h.instrument.id} of ${h.instrument.source}, not ${instrument.id} of ${instrument.admin}`,
    );
    tx.require(h.lock === null, `input holding ${cid} is locked (${h.lock?.context ?? ''})`);
    total = total.plus(dec(h.amount));
    tx.exercise(cid, 'Archive', {});
  }
  tx.require(
    total.greaterThanOrEqualTo(needed),
    `Insufficient funds: the input holdings total ${amount(total)}, less than ${amount(needed)}`,
  );
  return total;
}

/** the change holding for the sender, when the inputs exceed what was spent */
export function createChange(
  tx: ChoiceContext,
  r: Registrar,
  owner: string,
  instrument: InstrumentId,
  total: Decimal,
  spent: Decimal,
): string[] {
  const change = total.minus(spent);
  return change.greaterThan(0) ? [tx.create(Holding, holdingArg(r, owner, instrument, change))] : [];
}

/**
 * The token standard's shared Daml types (canton-json-api.md §6) as LF types, and the helpers the token
 * templates share: amounts, choice-context lookups, tagged results.
 */
import { Decimal } from 'decimal.js';
import { T, type LfType, formatNumeric, parseTime } from '../ledger/lf.js';
import type { ChoiceContext } from '../ledger/model.js';

export interface InstrumentId {
  admin: string;
  id: string;
}

export interface Metadata {
  values: Record<string, string>;
}

export type AnyValue = { tag: string; value: unknown };

export interface ExtraArgs {
  context: { values: Record<string, AnyValue> };
  meta: Metadata;
}

export const InstrumentIdT = T.record('InstrumentId', { admin: T.party, id: T.text });
export const MetadataT = T.record('Metadata', { values: T.textmap(T.text) });

export const AnyValueT: LfType = T.variant('AnyValue', () => ({
  AV_Text: T.text,
  AV_Int: T.int,
  AV_Decimal: T.numeric,
  AV_Bool: T.bool,
  AV_Date: T.date,
  AV_Time: T.time,
  AV_RelTime: T.reltime,
  AV_Party: T.party,
  AV_ContractId: T.cid,
  AV_List: T.list(AnyValueT),
  AV_Map: T.textmap(AnyValueT),
}));

export const ChoiceContextT = T.record('ChoiceContext', { values: T.textmap(AnyValueT) });
export const ExtraArgsT = T.record('ExtraArgs', { context: ChoiceContextT, meta: MetadataT });

export const TransferT = T.record('Transfer', {
  sender: T.party,
  receiver: T.party,
  amount: T.numeric,
  instrumentId: InstrumentIdT,
  requestedAt: T.time,
  executeBefore: T.time,
  inputHoldingCids: T.list(T.cid),
  meta: MetadataT,
});

export interface Transfer {
  sender: string;
  receiver: string;
  amount: string;
  instrumentId: InstrumentId;
  requestedAt: string;
  executeBefore: string;
  inputHoldingCids: string[];
  meta: Metadata;
}

export const SettlementInfoT = T.record('SettlementInfo', {
  executor: T.party,
  settlementRef: T.record('Reference', { id: T.text, cid: T.optional(T.cid) }),
  requestedAt: T.time,
  allocateBefore: T.time,
  settleBefore: T.time,
  meta: MetadataT,
});

export const TransferLegT = T.record('TransferLeg', {
  sender: T.party,
  receiver: T.party,
  amount: T.numeric,
  instrumentId: InstrumentIdT,
  meta: MetadataT,
});

export const AllocationSpecificationT = T.record('AllocationSpecification', {
  settlement: SettlementInfoT,
  transferLegId: T.text,
  transferLeg: TransferLegT,
});

export interface AllocationSpecification {
  settlement: {
    executor: string;
    settlementRef: { id: string; cid: string | null };
    requestedAt: string;
    allocateBefore: string;
    settleBefore: string;
    meta: Metadata;
  };
  transferLegId: string;
  transferLeg: {
    sender: string;
    receiver: string;
    amount: string;
    instrumentId: InstrumentId;
    meta: Metadata;
  };
}

export const LimitsT = T.record('Limits', {
  minAmount: T.optional(T.numeric),
  maxAmount: T.optional(T.numeric),
});

export interface Limits {
  minAmount: string | null;
  maxAmount: string | null;
}

export const EMPTY_META: Metadata = { values: {} };

/** the reason/reference meta keys of the token standard */
export const META = {
  reason: 'splice.lfdecentralizedtrust.org/reason',
  reference: 'splice.lfdecentralizedtrust.org/reference',
  txKind: 'splice.lfdecentralizedtrust.org/tx-kind',
} as const;

/** choice-context keys of the DA utility registry; each is also sent without its prefix */
export const CONTEXT = {
  instrumentConfiguration: 'utility.digitalasset.com/instrument-configuration',
  senderCredentials: 'utility.digitalasset.com/sender-credentials',
  receiverCredentials: 'utility.digitalasset.com/receiver-credentials',
  transferRule: 'utility.digitalasset.com/transfer-rule',
  appRewardConfiguration: 'utility.digitalasset.com/app-reward-configuration',
  issuerCredentials: 'utility.digitalasset.com/issuer-credentials',
  transferPreapproval: 'utility.digitalasset.com/transfer-preapproval',
  lockedHolding: 'utility.digitalasset.com/locked-holding',
} as const;

export function dec(value: string): Decimal {
  return new Decimal(value);
}

export function amount(value: Decimal): string {
  return formatNumeric(value);
}

/** microseconds of a stored Time */
export function micros(time: string): number {
  return parseTime(time) ?? 0;
}

/** A contract id from the choice context, by key with or without the `utility.digitalasset.com/` prefix. */
export function contextCid(
  tx: ChoiceContext,
  extraArgs: ExtraArgs,
  key: string,
  required: boolean,
): string | undefined {
  const values = extraArgs.context.values;
  const short = key.slice(key.indexOf('/') + 1);
  const value = values[key] ?? values[short];
  if (value === undefined) {
    if (required) tx.fail(`Missing context entry: ${key} (pass the choice context the registry returned)`);
    return undefined;
  }
  if (value.tag !== 'AV_ContractId' || typeof value.value !== 'string') {
    return tx.fail(`Context entry ${key} must be an AV_ContractId, got ${value.tag}`);
  }
  return value.value;
}

/** contract ids of an AV_List context entry (credentials) */
export function contextCids(extraArgs: ExtraArgs, key: string): string[] {
  const short = key.slice(key.indexOf('/') + 1);
  const value = extraArgs.context.values[key] ?? extraArgs.context.values[short];
  if (value?.tag !== 'AV_List' || !Array.isArray(value.value)) return [];
  return (value.value as AnyValue[]).filter((v) => v.tag === 'AV_ContractId').map((v) => String(v.value));
}

export function sameInstrument(a: InstrumentId, b: InstrumentId): boolean {
  return a.admin === b.admin && a.id === b.id;
}

export function tagged(tag: string, value: unknown = {}): AnyValue {
  return { tag, value };
}

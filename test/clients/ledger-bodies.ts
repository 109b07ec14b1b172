/**
 * Answers of a participant and a registry, written from the references (canton-json-api.md §3, wrapped-api.md §4,
 * §7, §8) in the documents' shapes: every required field of the 3.5.1 document is present. The contract tests
 * (test/contract/ledger-requests.test.ts) hold these bodies to the OpenAPI documents.
 */
const hex = (byte: string) => byte.repeat(32);
export const ns = (byte: string) => `1220${hex(byte)}`;

export const ADMIN = `cbtc-network::${ns('0a')}`;
export const OTHER_ADMIN = `other-registrar::${ns('0b')}`;
export const ALICE = `alice::${ns('aa')}`;
export const BOB = `bob::${ns('bb')}`;
export const OPERATOR = `operator::${ns('0c')}`;
export const SYNC = `global-domain::${ns('0d')}`;
export const INSTRUMENT = { admin: ADMIN, id: 'CBTC' };

export const PKG = {
  holding: '718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b',
  transferInstruction: '55ba4deb0ad4662c4168b39859738a0e91388d252286480c7331b3f71a517281',
  registryHolding: '8107899ac4723ce986bf7d27416534e576e54b92161e46150a595fb78ff3d3a1',
  registryApp: '7a75ef6e69f69395a4e60919e228528bb8f3881150ccfde3f31bcc73864b18ab',
  registry: 'a236e8e22a3b5f199e37d5554e82bafd2df688f901de02b00be3964bdfa8c1ab',
  cbtc: 'f240dd5d1a98079f37c0f93272cf5b28d4523027c42d0003c4c7a530eed6c313',
  credential: '5a29ead611a0abd5f5b3fc3caf7d0f67c0ff802032ab6d392824aa9060e56d70',
  credentialApp: 'e9a3b7df354dfd2f15c7d015328c34256308c90ba96f86f185dad58ffca8299b',
};

export const IDS = {
  holdingInterface: `${PKG.holding}:Splice.Api.Token.HoldingV1:Holding`,
  instructionInterface: `${PKG.transferInstruction}:Splice.Api.Token.TransferInstructionV1:TransferInstruction`,
  factoryInterface: `${PKG.transferInstruction}:Splice.Api.Token.TransferInstructionV1:TransferFactory`,
  registryHolding: `${PKG.registryHolding}:Utility.Registry.Holding.V0.Holding:Holding`,
  transferOffer: `${PKG.registryApp}:Utility.Registry.App.V0.Model.Transfer:TransferOffer`,
  executedTransfer: `${PKG.registry}:Utility.Registry.V0.Holding.Transfer:ExecutedTransfer`,
  factory: `${PKG.registryApp}:Utility.Registry.App.V0.Service.AllocationFactory:AllocationFactory`,
  instrumentConfiguration: `${PKG.registry}:Utility.Registry.V0.Configuration.Instrument:InstrumentConfiguration`,
  depositAccount: `${PKG.cbtc}:CBTC.DepositAccount:CBTCDepositAccount`,
  depositRules: `${PKG.cbtc}:CBTC.DepositAccount:CBTCDepositAccountRules`,
  withdrawAccount: `${PKG.cbtc}:CBTC.WithdrawAccount:CBTCWithdrawAccount`,
  withdrawRules: `${PKG.cbtc}:CBTC.WithdrawAccount:CBTCWithdrawAccountRules`,
  withdrawRequest: `${PKG.cbtc}:CBTC.WithdrawRequest:CBTCWithdrawRequest`,
  credential: `${PKG.credential}:Utility.Credential.V0.Credential:Credential`,
  userService: `${PKG.credentialApp}:Utility.Credential.App.V0.Service.User:UserService`,
};

let counter = 0;
/** A fresh contract id, `00` + hex. */
export function cid(): string {
  counter += 1;
  return `00${counter.toString(16).padStart(8, '0')}${hex('c1')}`;
}

export interface CreatedOptions {
  contractId?: string;
  templateId: string;
  createArgument?: unknown;
  views?: Array<{ interfaceId: string; viewValue?: unknown; code?: number; message?: string }>;
  signatories?: string[];
  observers?: string[];
  blob?: string;
  offset?: number;
  nodeId?: number;
}

/** A `CreatedEvent` with every field the document requires. */
export function createdEvent(o: CreatedOptions): Record<string, unknown> {
  const packageId = o.templateId.split(':')[0] ?? '';
  return {
    offset: o.offset ?? 4249,
    nodeId: o.nodeId ?? 0,
    contractId: o.contractId ?? cid(),
    templateId: o.templateId,
    contractKey: null,
    createArgument: o.createArgument === undefined ? null : o.createArgument,
    ...(o.blob === undefined ? {} : { createdEventBlob: o.blob }),
    interfaceViews: (o.views ?? []).map((v) => ({
      interfaceId: v.interfaceId,
      viewStatus: { code: v.code ?? 0, message: v.message ?? '', details: [] },
      ...(v.viewValue === undefined ? {} : { viewValue: v.viewValue }),
    })),
    witnessParties: o.signatories ?? [ALICE],
    signatories: o.signatories ?? [ALICE],
    observers: o.observers ?? [],
    createdAt: '2026-04-10T09:00:00.000000Z',
    packageName: 'utility-registry-holding-v0',
    representativePackageId: packageId,
    acsDelta: true,
  };
}

/** One element of an active-contracts answer holding an active contract. */
export function activeEntry(created: Record<string, unknown>): Record<string, unknown> {
  return {
    workflowId: '',
    contractEntry: {
      JsActiveContract: { createdEvent: created, synchronizerId: SYNC, reassignmentCounter: 0 },
    },
  };
}

export function holdingView(o: {
  owner?: string;
  amount: string;
  admin?: string;
  id?: string;
  locked?: boolean;
}): Record<string, unknown> {
  return {
    owner: o.owner ?? ALICE,
    instrumentId: { admin: o.admin ?? ADMIN, id: o.id ?? 'CBTC' },
    amount: o.amount,
    lock: o.locked
      ? { holders: [ADMIN], expiresAt: null, expiresAfter: null, context: 'transfer offer' }
      : null,
    meta: { values: {} },
  };
}

/** A holding as an interface-only query returns it: `createArgument: null`, the Holding view only. */
export function holdingEntry(o: Parameters<typeof holdingView>[0] & { contractId?: string }) {
  return activeEntry(
    createdEvent({
      ...(o.contractId ? { contractId: o.contractId } : {}),
      templateId: IDS.registryHolding,
      views: [{ interfaceId: IDS.holdingInterface, viewValue: holdingView(o) }],
      signatories: [o.owner ?? ALICE, ADMIN],
    }),
  );
}

export function transferValue(o: { sender: string; receiver: string; amount: string; admin?: string }) {
  return {
    sender: o.sender,
    receiver: o.receiver,
    amount: o.amount,
    instrumentId: { admin: o.admin ?? ADMIN, id: 'CBTC' },
    requestedAt: '2026-04-10T09:04:59.812345Z',
    executeBefore: '2026-04-17T09:04:59.812345Z',
    inputHoldingCids: [cid()],
    meta: { values: { 'splice.lfdecentralizedtrust.org/reason': '' } },
  };
}

/** A TransferOffer seen through the TransferInstruction interface (`createArgument: null`). */
export function offerEntry(o: Parameters<typeof transferValue>[0] & { contractId?: string }) {
  return activeEntry(
    createdEvent({
      ...(o.contractId ? { contractId: o.contractId } : {}),
      templateId: IDS.transferOffer,
      views: [
        {
          interfaceId: IDS.instructionInterface,
          viewValue: {
            originalInstructionCid: null,
            transfer: transferValue(o),
            status: { tag: 'TransferPendingReceiverAcceptance', value: {} },
            meta: { values: {} },
          },
        },
      ],
      signatories: [o.sender, ADMIN],
      observers: [o.receiver],
    }),
  );
}

/** A `JsCantonError` as the participant sends it. */
export function cantonError(
  code: string,
  cause: string,
  errorCategory: number,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    code,
    cause,
    correlationId: 'c0ffee',
    traceId: '0123456789abcdef',
    context: { participant: 'participant1' },
    resources: [],
    errorCategory,
    ...extra,
  };
}

export function exercisedEvent(o: {
  nodeId: number;
  lastDescendantNodeId: number;
  contractId?: string;
  templateId: string;
  interfaceId?: string;
  choice: string;
  exerciseResult?: unknown;
  consuming?: boolean;
}): Record<string, unknown> {
  return {
    offset: 4300,
    nodeId: o.nodeId,
    contractId: o.contractId ?? cid(),
    templateId: o.templateId,
    ...(o.interfaceId ? { interfaceId: o.interfaceId } : {}),
    choice: o.choice,
    choiceArgument: {},
    actingParties: [ALICE],
    consuming: o.consuming ?? false,
    witnessParties: [ALICE],
    lastDescendantNodeId: o.lastDescendantNodeId,
    exerciseResult: o.exerciseResult ?? null,
    packageName: 'utility-registry-app-v0',
    acsDelta: false,
  };
}

/** A `JsTransaction` of the LEDGER_EFFECTS shape around the given events. */
export function transaction(events: unknown[], commandId = 'cmd-1'): Record<string, unknown> {
  return {
    updateId: `1220${hex('e7')}`,
    commandId,
    workflowId: '',
    effectiveAt: '2026-04-10T09:05:00.117218Z',
    events,
    offset: 4300,
    synchronizerId: SYNC,
    recordTime: '2026-04-10T09:05:00.154179Z',
  };
}

/** A registry `DisclosedContract` with the debug fields the registry adds without `excludeDebugFields`. */
export function registryDisclosed(contractId: string, templateId: string, synchronizerId = SYNC) {
  return {
    templateId,
    contractId,
    createdEventBlob: 'CgMyLjESgAQKRQDEqC3b',
    synchronizerId,
  };
}

export function choiceContext(disclosed: unknown[]): Record<string, unknown> {
  return {
    choiceContextData: {
      values: {
        'utility.digitalasset.com/instrument-configuration': { tag: 'AV_ContractId', value: '00eca7' },
        'utility.digitalasset.com/sender-credentials': {
          tag: 'AV_List',
          value: [{ tag: 'AV_ContractId', value: '008402' }],
        },
      },
    },
    disclosedContracts: disclosed,
  };
}

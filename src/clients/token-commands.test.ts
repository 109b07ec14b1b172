/**
 * The token flows' command shapes, exactly as wrapped-api.md §8 writes them, and the values they refuse.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN, ALICE, BOB, IDS, SYNC } from '../../test/clients/ledger-bodies.js';
import { StepError } from '../errors.js';
import type { TokenStandardContracts } from './gateway.js';
import type { ChoiceContext, TransferFactory } from './registry.js';
import {
  acceptCredentialOfferCommand,
  allocateCommand,
  allocationCommand,
  burnCommand,
  combineCommands,
  createDepositAccountCommand,
  createWithdrawAccountCommand,
  transferCommand,
  transferInstructionCommand,
  transferOf,
} from './token-commands.js';

const context: ChoiceContext = {
  choiceContextData: {
    values: {
      'utility.digitalasset.com/instrument-configuration': { tag: 'AV_ContractId', value: '00eca7' },
    },
  },
  disclosedContracts: [
    { templateId: IDS.factory, contractId: '000b99', createdEventBlob: 'CgMy', synchronizerId: SYNC },
    {
      templateId: IDS.instrumentConfiguration,
      contractId: '00eca7',
      createdEventBlob: 'CgMz',
      synchronizerId: '',
    },
  ],
};
const factory: TransferFactory = { factoryId: '000b99', transferKind: 'offer', choiceContext: context };
const spec = {
  sender: ALICE,
  receiver: BOB,
  amount: '0.02',
  instrument: { admin: ADMIN, id: 'CBTC' },
  requestedAt: new Date('2026-04-10T09:04:59.812Z'),
  executeBefore: '2026-04-17T09:04:59.812345901+00:00',
  inputHoldingCids: ['00c5eb', '00d371'],
};
const rules = { contract_id: '0085', template_id: IDS.depositRules, created_event_blob: 'CgMyLjES' };

describe('transfer', () => {
  it('TransferFactory_Transfer: the interface id, the factory, the context as returned, the registry’s disclosures', () => {
    const transfer = transferOf({ ...spec, meta: { 'splice.lfdecentralizedtrust.org/reference': 'cmVm' } });
    expect(transfer).toEqual({
      sender: ALICE,
      receiver: BOB,
      amount: '0.02',
      instrumentId: { admin: ADMIN, id: 'CBTC' },
      requestedAt: '2026-04-10T09:04:59.812Z',
      executeBefore: '2026-04-17T09:04:59.812345901+00:00',
      inputHoldingCids: ['00c5eb', '00d371'],
      meta: {
        values: {
          'splice.lfdecentralizedtrust.org/reason': '',
          'splice.lfdecentralizedtrust.org/reference': 'cmVm',
        },
      },
    });
    expect(transferCommand(factory, transfer)).toEqual({
      commands: [
        {
          ExerciseCommand: {
            templateId:
              '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory',
            contractId: '000b99',
            choice: 'TransferFactory_Transfer',
            choiceArgument: {
              expectedAdmin: ADMIN,
              transfer,
              extraArgs: { context: context.choiceContextData, meta: { values: {} } },
            },
          },
        },
      ],
      disclosedContracts: context.disclosedContracts,
    });
  });

  it.each([
    ['an amount with 11 fraction digits', { amount: '0.00000000001' }, /more than 10 fraction digits/],
    ['an amount in exponent notation', { amount: '1e-3' }, /not a decimal amount/],
    ['a zero amount', { amount: '0.000' }, /must be more than 0/],
    ['no inputs', { inputHoldingCids: [] }, /no input holdings/],
    ['an expiry before the request', { executeBefore: '2026-04-01T00:00:00Z' }, /executeBefore is not after/],
    ['a receiver that is not a party id', { receiver: 'bob' }, /receiver 'bob'/],
  ] as const)('refuses %s', (_name, change, message) => {
    let error: unknown;
    try {
      transferOf({ ...spec, ...change });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StepError);
    expect((error as StepError).message).toMatch(message);
  });
});

describe('instruction choices', () => {
  it.each([
    ['accept', 'TransferInstruction_Accept'],
    ['reject', 'TransferInstruction_Reject'],
    ['withdraw', 'TransferInstruction_Withdraw'],
  ] as const)('%s → %s on the TransferInstruction interface with the context', (choice, name) => {
    expect(transferInstructionCommand(choice, '00fadd', context)).toEqual({
      commands: [
        {
          ExerciseCommand: {
            templateId:
              '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction',
            contractId: '00fadd',
            choice: name,
            choiceArgument: { extraArgs: { context: context.choiceContextData, meta: { values: {} } } },
          },
        },
      ],
      disclosedContracts: context.disclosedContracts,
    });
  });

  it('combines accepts into one submission, disclosing each contract once', () => {
    const combined = combineCommands([
      transferInstructionCommand('accept', '00f1', context),
      transferInstructionCommand('accept', '00f2', context),
    ]);
    expect(combined.commands.map((c) => c.ExerciseCommand.contractId)).toEqual(['00f1', '00f2']);
    expect(combined.disclosedContracts.map((d) => d.contractId)).toEqual(['000b99', '00eca7']);
  });
});

describe('allocation', () => {
  const allocation = {
    settlement: {
      executor: BOB,
      settlementRef: { id: 'trade-1' },
      requestedAt: '2026-04-10T09:00:00Z',
      allocateBefore: '2026-04-11T09:00:00Z',
      settleBefore: '2026-04-12T09:00:00Z',
      meta: { values: {} },
    },
    transferLegId: 'leg-0',
    transferLeg: {
      sender: ALICE,
      receiver: BOB,
      amount: '1.5',
      instrumentId: { admin: ADMIN, id: 'CBTC' },
      meta: { values: {} },
    },
  };

  it('AllocationFactory_Allocate and the allocation choices on their interfaces', () => {
    const prepared = allocateCommand(
      { factoryId: '00af', choiceContext: context },
      { expectedAdmin: ADMIN, allocation, requestedAt: '2026-04-10T09:00:00Z', inputHoldingCids: ['00c5eb'] },
    );
    expect(prepared.commands[0]?.ExerciseCommand).toEqual({
      templateId:
        '#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationFactory',
      contractId: '00af',
      choice: 'AllocationFactory_Allocate',
      choiceArgument: {
        expectedAdmin: ADMIN,
        allocation,
        requestedAt: '2026-04-10T09:00:00Z',
        inputHoldingCids: ['00c5eb'],
        extraArgs: { context: context.choiceContextData, meta: { values: {} } },
      },
    });
    expect(
      (['execute-transfer', 'withdraw', 'cancel'] as const).map(
        (choice) => allocationCommand(choice, '00al', context).commands[0]?.ExerciseCommand.choice,
      ),
    ).toEqual(['Allocation_ExecuteTransfer', 'Allocation_Withdraw', 'Allocation_Cancel']);
    expect(allocationCommand('cancel', '00al', context).commands[0]?.ExerciseCommand.templateId).toBe(
      '#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Allocation',
    );
  });
});

describe('accounts, burn and credentials', () => {
  it('CBTCDepositAccountRules_CreateDepositAccount with the rules disclosed and synchronizerId ""', () => {
    expect(createDepositAccountCommand({ rules, owner: ALICE, credentialCids: ['00cr'] })).toEqual({
      commands: [
        {
          ExerciseCommand: {
            templateId: '#cbtc:CBTC.DepositAccount:CBTCDepositAccountRules',
            contractId: '0085',
            choice: 'CBTCDepositAccountRules_CreateDepositAccount',
            choiceArgument: { owner: ALICE, credentialCids: ['00cr'] },
          },
        },
      ],
      disclosedContracts: [
        {
          contractId: '0085',
          createdEventBlob: 'CgMyLjES',
          templateId: IDS.depositRules,
          synchronizerId: '',
        },
      ],
    });
  });

  it('CBTCWithdrawAccountRules_CreateWithdrawAccount with the destination; an empty one is refused', () => {
    const prepared = createWithdrawAccountCommand({
      rules: { ...rules, template_id: IDS.withdrawRules },
      owner: ALICE,
      destinationBtcAddress: 'bcrt1qdest',
      credentialCids: [],
    });
    expect(prepared.commands[0]?.ExerciseCommand).toEqual({
      templateId: '#cbtc:CBTC.WithdrawAccount:CBTCWithdrawAccountRules',
      contractId: '0085',
      choice: 'CBTCWithdrawAccountRules_CreateWithdrawAccount',
      choiceArgument: { owner: ALICE, destinationBtcAddress: 'bcrt1qdest', credentialCids: [] },
    });
    expect(() =>
      createWithdrawAccountCommand({ rules, owner: ALICE, destinationBtcAddress: ' ', credentialCids: [] }),
    ).toThrow(/destination address is empty/);
  });

  it('the burn: CBTCWithdrawAccount_Withdraw with the context keys, the reason and the three disclosures', () => {
    const contracts: TokenStandardContracts = {
      burn_mint_factory: {
        contract_id: '00b1',
        template_id: 'p:M:BurnMintFactory',
        created_event_blob: 'b1',
      },
      instrument_configuration: {
        contract_id: '00b2',
        template_id: IDS.instrumentConfiguration,
        created_event_blob: 'b2',
      },
      issuer_credential: { contract_id: '00b3', template_id: IDS.credential, created_event_blob: 'b3' },
    };
    const prepared = burnCommand({
      withdrawAccountCid: '00wa',
      tokens: ['00h1', '00h2'],
      amount: '0.001',
      contracts,
    });
    expect(prepared.commands[0]?.ExerciseCommand).toEqual({
      templateId: '#cbtc:CBTC.WithdrawAccount:CBTCWithdrawAccount',
      contractId: '00wa',
      choice: 'CBTCWithdrawAccount_Withdraw',
      choiceArgument: {
        tokens: ['00h1', '00h2'],
        amount: '0.001',
        burnMintFactoryCid: '00b1',
        extraArgs: {
          context: {
            values: {
              'utility.digitalasset.com/instrument-configuration': { tag: 'AV_ContractId', value: '00b2' },
              'utility.digitalasset.com/issuer-credentials': {
                tag: 'AV_List',
                value: [{ tag: 'AV_ContractId', value: '00b3' }],
              },
            },
          },
          meta: { values: { 'splice.lfdecentralizedtrust.org/reason': 'CBTC withdrawal' } },
        },
        credentialCids: null,
      },
    });
    expect(prepared.disclosedContracts.map((d) => [d.contractId, d.synchronizerId])).toEqual([
      ['00b1', ''],
      ['00b2', ''],
      ['00b3', ''],
    ]);
    const withCredentials = burnCommand({
      withdrawAccountCid: '00wa',
      tokens: ['00h1'],
      amount: '1',
      contracts,
      credentialCids: ['00cr'],
    });
    expect(
      (withCredentials.commands[0]?.ExerciseCommand.choiceArgument as { credentialCids: unknown })
        .credentialCids,
    ).toEqual(['00cr']);
    expect(() => burnCommand({ withdrawAccountCid: '00wa', tokens: [], amount: '1', contracts })).toThrow(
      /no holdings to burn/,
    );
    expect(() =>
      burnCommand({ withdrawAccountCid: '00wa', tokens: ['00t1'], amount: '0', contracts }),
    ).toThrow(/must be more than 0/);
  });

  it('UserService_AcceptFreeCredentialOffer on the UserService template as read, nothing disclosed', () => {
    expect(
      acceptCredentialOfferCommand({
        userService: { contractId: '00us', templateId: IDS.userService },
        credentialOfferCid: '00co',
      }),
    ).toEqual({
      commands: [
        {
          ExerciseCommand: {
            templateId: IDS.userService,
            contractId: '00us',
            choice: 'UserService_AcceptFreeCredentialOffer',
            choiceArgument: { credentialOfferCid: '00co' },
          },
        },
      ],
      disclosedContracts: [],
    });
  });
});

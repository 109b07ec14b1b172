/**
 * The token standard's on-ledger interfaces (canton-json-api.md §6): Holding, TransferFactory,
 * TransferInstruction, AllocationFactory, Allocation, and the burn-mint factory the withdraw flow uses. Each
 * declares its choices' argument types, consumption and controllers; templates implement the bodies.
 */
import { T } from '../ledger/lf.js';
import { iface } from '../ledger/model.js';
import { PKG } from './packages.js';
import {
  AllocationSpecificationT,
  ExtraArgsT,
  InstrumentIdT,
  TransferT,
  type AllocationSpecification,
  type Transfer,
} from './types.js';

export const HoldingI = iface({
  pkg: PKG.holdingV1,
  name: { module: 'Splice.Api.Token.HoldingV1', entity: 'Holding' },
  choices: {},
});

export interface HoldingView {
  owner: string;
  instrumentId: { admin: string; id: string };
  amount: string;
  lock: null | { holders: string[]; expiresAt: string | null; expiresAfter: unknown; context: string | null };
  meta: { values: Record<string, string> };
}

export const TransferFactoryI = iface({
  pkg: PKG.transferInstructionV1,
  name: { module: 'Splice.Api.Token.TransferInstructionV1', entity: 'TransferFactory' },
  choices: {
    TransferFactory_Transfer: {
      argType: T.record('TransferFactory_Transfer', {
        expectedAdmin: T.party,
        transfer: TransferT,
        extraArgs: ExtraArgsT,
      }),
      consuming: false,
      controllers: (_view, arg: { transfer: Transfer }) => [arg.transfer.sender],
    },
    TransferFactory_PublicFetch: {
      argType: T.record('TransferFactory_PublicFetch', { expectedAdmin: T.party, actor: T.party }),
      consuming: false,
      controllers: (_view, arg: { actor: string }) => [arg.actor],
    },
  },
});

interface InstructionView {
  transfer: Transfer;
}

const extraArgsOnly = (name: string) => T.record(name, { extraArgs: ExtraArgsT });

export const TransferInstructionI = iface({
  pkg: PKG.transferInstructionV1,
  name: { module: 'Splice.Api.Token.TransferInstructionV1', entity: 'TransferInstruction' },
  choices: {
    TransferInstruction_Accept: {
      argType: extraArgsOnly('TransferInstruction_Accept'),
      consuming: true,
      controllers: (view: InstructionView) => [view.transfer.receiver],
    },
    TransferInstruction_Reject: {
      argType: extraArgsOnly('TransferInstruction_Reject'),
      consuming: true,
      controllers: (view: InstructionView) => [view.transfer.receiver],
    },
    TransferInstruction_Withdraw: {
      argType: extraArgsOnly('TransferInstruction_Withdraw'),
      consuming: true,
      controllers: (view: InstructionView) => [view.transfer.sender],
    },
    TransferInstruction_Update: {
      argType: T.record('TransferInstruction_Update', {
        extraActors: T.list(T.party),
        extraArgs: ExtraArgsT,
      }),
      consuming: true,
      controllers: (view: InstructionView, arg: { extraActors: string[] }) => [
        view.transfer.instrumentId.admin,
        ...arg.extraActors,
      ],
    },
  },
});

export const AllocationFactoryI = iface({
  pkg: PKG.allocationInstructionV1,
  name: { module: 'Splice.Api.Token.AllocationInstructionV1', entity: 'AllocationFactory' },
  choices: {
    AllocationFactory_Allocate: {
      argType: T.record('AllocationFactory_Allocate', {
        expectedAdmin: T.party,
        allocation: AllocationSpecificationT,
        requestedAt: T.time,
        inputHoldingCids: T.list(T.cid),
        extraArgs: ExtraArgsT,
      }),
      consuming: false,
      controllers: (_view, arg: { allocation: AllocationSpecification }) => [
        arg.allocation.transferLeg.sender,
      ],
    },
    AllocationFactory_PublicFetch: {
      argType: T.record('AllocationFactory_PublicFetch', { expectedAdmin: T.party, actor: T.party }),
      consuming: false,
      controllers: (_view, arg: { actor: string }) => [arg.actor],
    },
  },
});

interface AllocationView {
  allocation: AllocationSpecification;
}

/** executor, sender and receiver: the controllers of executing or cancelling an allocation */
function allocationControllers(view: AllocationView): string[] {
  const { settlement, transferLeg } = view.allocation;
  return [...new Set([settlement.executor, transferLeg.sender, transferLeg.receiver])];
}

export const AllocationI = iface({
  pkg: PKG.allocationV1,
  name: { module: 'Splice.Api.Token.AllocationV1', entity: 'Allocation' },
  choices: {
    Allocation_ExecuteTransfer: {
      argType: extraArgsOnly('Allocation_ExecuteTransfer'),
      consuming: true,
      controllers: allocationControllers,
    },
    Allocation_Cancel: {
      argType: extraArgsOnly('Allocation_Cancel'),
      consuming: true,
      controllers: allocationControllers,
    },
    Allocation_Withdraw: {
      argType: extraArgsOnly('Allocation_Withdraw'),
      consuming: true,
      controllers: (view: AllocationView) => [view.allocation.transferLeg.sender],
    },
  },
});

export const BurnMintFactoryI = iface({
  pkg: PKG.burnMintV1,
  name: { module: 'Splice.Api.Token.BurnMintV1', entity: 'BurnMintFactory' },
  choices: {
    BurnMintFactory_BurnMint: {
      argType: T.record('BurnMintFactory_BurnMint', {
        expectedAdmin: T.party,
        instrumentId: InstrumentIdT,
        inputHoldingCids: T.list(T.cid),
        outputs: T.list(T.record('BurnMintOutput', { owner: T.party, amount: T.numeric, context: T.text })),
        extraActors: T.list(T.party),
        extraArgs: ExtraArgsT,
      }),
      consuming: false,
      controllers: (view: { admin: string }, arg: { extraActors: string[] }) => [
        view.admin,
        ...arg.extraActors,
      ],
    },
  },
});

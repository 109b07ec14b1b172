/**
 * The step kinds by `uses` name, each with two loaders: its declaration (`<kind>.declaration.ts`: name, summary,
 * `with` schema, outputs, static `check`), which is all `validate` and `ledgerbook schema` read, and the
 * kind itself (`<kind>.ts`: the declaration with its run-time code), which `plan` and `run` load. Each module is
 * loaded the first time it is asked for, so a command loads the kinds its playbook names and no other (each
 * `import()` is a chunk of its own in the build), and `validate` loads no step's run-time code. This file only
 * registers; src/steps/index.test.ts holds every entry to the kind its modules export.
 */
import type { AnyStepDeclaration } from '../playbook/step-declaration.js';
import type { AnyStepKind } from './contract.js';

interface Entry {
  declaration(): Promise<AnyStepDeclaration | undefined>;
  kind(): Promise<AnyStepKind | undefined>;
}

/** the offer kinds are made by one function, in one module, and declared in one */
const offerKind = (name: string): Entry => ({
  declaration: async () =>
    (await import('./token/offers.declaration.js')).offerDeclarations.find((kind) => kind.kind === name),
  kind: async () => (await import('./token/offers.js')).offerKinds.find((kind) => kind.kind === name),
});

const entries: Readonly<Record<string, Entry>> = {
  'core.shell': {
    declaration: async () => (await import('./core/shell.declaration.js')).coreShellDeclaration,
    kind: async () => (await import('./core/shell.js')).coreShell,
  },
  'core.wait': {
    declaration: async () => (await import('./core/wait.declaration.js')).coreWaitDeclaration,
    kind: async () => (await import('./core/wait.js')).coreWait,
  },
  'core.assert': {
    declaration: async () => (await import('./core/assert.declaration.js')).coreAssertDeclaration,
    kind: async () => (await import('./core/assert.js')).coreAssert,
  },
  'core.approve': {
    declaration: async () => (await import('./core/approve.declaration.js')).coreApproveDeclaration,
    kind: async () => (await import('./core/approve.js')).coreApprove,
  },
  'core.log': {
    declaration: async () => (await import('./core/log.declaration.js')).coreLogDeclaration,
    kind: async () => (await import('./core/log.js')).coreLog,
  },
  'dpm.network': {
    declaration: async () => (await import('./party/network.declaration.js')).dpmNetworkDeclaration,
    kind: async () => (await import('./party/network.js')).dpmNetwork,
  },
  'dpm.party-config': {
    declaration: async () => (await import('./party/party-config.declaration.js')).dpmPartyConfigDeclaration,
    kind: async () => (await import('./party/party-config.js')).dpmPartyConfig,
  },
  'dpm.onboard-party': {
    declaration: async () =>
      (await import('./party/onboard-party.declaration.js')).dpmOnboardPartyDeclaration,
    kind: async () => (await import('./party/onboard-party.js')).dpmOnboardParty,
  },
  'dpm.accept-invitations': {
    declaration: async () =>
      (await import('./party/accept-invitations.declaration.js')).dpmAcceptInvitationsDeclaration,
    kind: async () => (await import('./party/accept-invitations.js')).dpmAcceptInvitations,
  },
  'dpm.kick': {
    declaration: async () => (await import('./party/kick.declaration.js')).dpmKickDeclaration,
    kind: async () => (await import('./party/kick.js')).dpmKick,
  },
  'dpm.add-party': {
    declaration: async () => (await import('./party/add-party.declaration.js')).dpmAddPartyDeclaration,
    kind: async () => (await import('./party/add-party.js')).dpmAddParty,
  },
  'dpm.change-threshold': {
    declaration: async () =>
      (await import('./party/change-threshold.declaration.js')).dpmChangeThresholdDeclaration,
    kind: async () => (await import('./party/change-threshold.js')).dpmChangeThreshold,
  },
  'dpm.workflow': {
    declaration: async () => (await import('./party/workflow-control.declaration.js')).dpmWorkflowDeclaration,
    kind: async () => (await import('./party/workflow-control.js')).dpmWorkflow,
  },
  'dpm.distribute-dars': {
    declaration: async () =>
      (await import('./party/distribute-dars.declaration.js')).dpmDistributeDarsDeclaration,
    kind: async () => (await import('./party/distribute-dars.js')).dpmDistributeDars,
  },
  'dpm.vetted-parity': {
    declaration: async () =>
      (await import('./party/vetted-parity.declaration.js')).dpmVettedParityDeclaration,
    kind: async () => (await import('./party/vetted-parity.js')).dpmVettedParity,
  },
  'dpm.deploy-contracts': {
    declaration: async () =>
      (await import('./party/deploy-contracts.declaration.js')).dpmDeployContractsDeclaration,
    kind: async () => (await import('./party/deploy-contracts.js')).dpmDeployContracts,
  },
  'dpm.governance': {
    declaration: async () => (await import('./party/governance.declaration.js')).dpmGovernanceDeclaration,
    kind: async () => (await import('./party/governance.js')).dpmGovernance,
  },
  'dpm.governance-review': {
    declaration: async () =>
      (await import('./party/governance-review.declaration.js')).dpmGovernanceReviewDeclaration,
    kind: async () => (await import('./party/governance-review.js')).dpmGovernanceReview,
  },
  'dpm.grant-rights': {
    declaration: async () => (await import('./party/grant-rights.declaration.js')).dpmGrantRightsDeclaration,
    kind: async () => (await import('./party/grant-rights.js')).dpmGrantRights,
  },
  'token.credentials': {
    declaration: async () => (await import('./token/credentials.declaration.js')).tokenCredentialsDeclaration,
    kind: async () => (await import('./token/credentials.js')).tokenCredentials,
  },
  'token.deposit-account': {
    declaration: async () =>
      (await import('./token/deposit-account.declaration.js')).tokenDepositAccountDeclaration,
    kind: async () => (await import('./token/deposit-account.js')).tokenDepositAccount,
  },
  'token.deposit-address': {
    declaration: async () =>
      (await import('./token/deposit-address.declaration.js')).tokenDepositAddressDeclaration,
    kind: async () => (await import('./token/deposit-address.js')).tokenDepositAddress,
  },
  'token.wait-for-mint': {
    declaration: async () =>
      (await import('./token/wait-for-mint.declaration.js')).tokenWaitForMintDeclaration,
    kind: async () => (await import('./token/wait-for-mint.js')).tokenWaitForMint,
  },
  'token.withdraw-account': {
    declaration: async () =>
      (await import('./token/withdraw-account.declaration.js')).tokenWithdrawAccountDeclaration,
    kind: async () => (await import('./token/withdraw-account.js')).tokenWithdrawAccount,
  },
  'token.withdraw': {
    declaration: async () => (await import('./token/withdraw.declaration.js')).tokenWithdrawDeclaration,
    kind: async () => (await import('./token/withdraw.js')).tokenWithdraw,
  },
  'token.allocate': {
    declaration: async () => (await import('./token/allocate.declaration.js')).tokenAllocateDeclaration,
    kind: async () => (await import('./token/allocate.js')).tokenAllocate,
  },
  'token.settle-allocation': {
    declaration: async () =>
      (await import('./token/settle-allocation.declaration.js')).tokenSettleAllocationDeclaration,
    kind: async () => (await import('./token/settle-allocation.js')).tokenSettleAllocation,
  },
  'token.dar-check': {
    declaration: async () => (await import('./token/dar-check.declaration.js')).tokenDarCheckDeclaration,
    kind: async () => (await import('./token/dar-check.js')).tokenDarCheck,
  },
  'token.faucet': {
    declaration: async () => (await import('./token/faucet.declaration.js')).tokenFaucetDeclaration,
    kind: async () => (await import('./token/faucet.js')).tokenFaucet,
  },
  'rewards.report': {
    declaration: async () => (await import('./token/rewards-report.declaration.js')).rewardsReportDeclaration,
    kind: async () => (await import('./token/rewards-report.js')).rewardsReport,
  },
  'sandbox.btc-send': {
    declaration: async () => (await import('./simulated/btc-send.declaration.js')).sandboxBtcSendDeclaration,
    kind: async () => (await import('./simulated/btc-send.js')).sandboxBtcSend,
  },
  'token.balance': {
    declaration: async () => (await import('./token/balance.declaration.js')).tokenBalanceDeclaration,
    kind: async () => (await import('./token/balance.js')).tokenBalance,
  },
  'token.transfer': {
    declaration: async () => (await import('./token/transfer.declaration.js')).tokenTransferDeclaration,
    kind: async () => (await import('./token/transfer.js')).tokenTransfer,
  },
  'token.distribute': {
    declaration: async () => (await import('./token/distribute.declaration.js')).tokenDistributeDeclaration,
    kind: async () => (await import('./token/distribute.js')).tokenDistribute,
  },
  'token.consolidate': {
    declaration: async () => (await import('./token/consolidate.declaration.js')).tokenConsolidateDeclaration,
    kind: async () => (await import('./token/consolidate.js')).tokenConsolidate,
  },
  'token.split': {
    declaration: async () => (await import('./token/split.declaration.js')).tokenSplitDeclaration,
    kind: async () => (await import('./token/split.js')).tokenSplit,
  },
  'token.accept-offers': offerKind('token.accept-offers'),
  'token.reject-offers': offerKind('token.reject-offers'),
  'token.cancel-offers': offerKind('token.cancel-offers'),
};

/** The step kinds a playbook may name: every name, and the declarations and kinds loaded so far. */
export interface StepKinds {
  /** every kind's `uses` name, loaded or not, sorted */
  readonly names: readonly string[];
  /**
   * load the declarations of the kinds of these names that exist (unknown names are left to validation to
   * report): what validation reads, without the kinds' run-time code
   */
  declare(names: Iterable<string>): Promise<ReadonlyMap<string, AnyStepDeclaration>>;
  /** a kind declared or loaded before; undefined for one not loaded or unknown */
  declaration(kind: string): AnyStepDeclaration | undefined;
  /** load the kinds of these names that exist, run-time code and all (for `plan` and `run`) */
  load(names: Iterable<string>): Promise<ReadonlyMap<string, AnyStepKind>>;
  /** a kind loaded before; undefined for one not loaded or unknown */
  get(kind: string): AnyStepKind | undefined;
}

class LazyStepKinds implements StepKinds {
  readonly names = Object.keys(entries).sort();
  private readonly declared = new Map<string, AnyStepDeclaration>();
  private readonly loaded = new Map<string, AnyStepKind>();

  declare(names: Iterable<string>): Promise<ReadonlyMap<string, AnyStepDeclaration>> {
    return this.fill(names, this.declared, (entry) => entry.declaration());
  }

  declaration(kind: string): AnyStepDeclaration | undefined {
    return this.loaded.get(kind) ?? this.declared.get(kind);
  }

  load(names: Iterable<string>): Promise<ReadonlyMap<string, AnyStepKind>> {
    return this.fill(names, this.loaded, (entry) => entry.kind());
  }

  get(kind: string): AnyStepKind | undefined {
    return this.loaded.get(kind);
  }

  private async fill<T extends AnyStepDeclaration>(
    names: Iterable<string>,
    into: Map<string, T>,
    loader: (entry: Entry) => Promise<T | undefined>,
  ): Promise<ReadonlyMap<string, T>> {
    const wanted = [...new Set(names)].filter((name) => Object.hasOwn(entries, name));
    await Promise.all(
      wanted
        .filter((name) => !into.has(name))
        .map(async (name) => {
          const loaded = await loader(entries[name]!);
          if (loaded?.kind !== name)
            throw new Error(`the module registered for step kind ${name} does not export it`);
          into.set(name, loaded);
        }),
    );
    return new Map(wanted.map((name) => [name, into.get(name)!]));
  }
}

/** Every step kind, each declaration and each kind loaded when first asked for. */
export const stepKinds: StepKinds = new LazyStepKinds();

/** Every step kind, loaded: for the build and tests. */
export function loadAllStepKinds(): Promise<ReadonlyMap<string, AnyStepKind>> {
  return stepKinds.load(stepKinds.names);
}

/** Every step kind's declaration: for the schema command and the build's validators. */
export function declareAllStepKinds(): Promise<ReadonlyMap<string, AnyStepDeclaration>> {
  return stepKinds.declare(stepKinds.names);
}

/** A registry of these kinds alone, all loaded: for tests that add kinds of their own. */
export function fixedStepKinds(kinds: Iterable<AnyStepKind>): StepKinds {
  const table = new Map([...kinds].map((kind) => [kind.kind, kind]));
  const pick = (names: Iterable<string>): Promise<ReadonlyMap<string, AnyStepKind>> =>
    Promise.resolve(
      new Map([...names].flatMap((name) => (table.has(name) ? [[name, table.get(name)!] as const] : []))),
    );
  return {
    names: [...table.keys()].sort(),
    declare: pick,
    declaration: (kind) => table.get(kind),
    load: pick,
    get: (kind) => table.get(kind),
  };
}

/**
 * The step kinds by `uses` name, each module loaded the first time a playbook uses its kind: `validate` and
 * `plan` of a playbook load the kinds it names and no other (each `import()` is a chunk of its own in the build).
 * This file only registers; src/steps/index.test.ts holds every entry to the kind its module exports.
 */
import type { AnyStepKind } from '../engine/step.js';

type Loader = () => Promise<AnyStepKind | undefined>;

/** the offer kinds are made by one function, in one module */
const offerKind =
  (name: string): Loader =>
  async () =>
    (await import('./token/offers.js')).offerKinds.find((kind) => kind.kind === name);

const loaders: Readonly<Record<string, Loader>> = {
  'core.shell': async () => (await import('./core/shell.js')).coreShell,
  'core.wait': async () => (await import('./core/wait.js')).coreWait,
  'core.assert': async () => (await import('./core/assert.js')).coreAssert,
  'core.approve': async () => (await import('./core/approve.js')).coreApprove,
  'core.log': async () => (await import('./core/log.js')).coreLog,
  'dpm.network': async () => (await import('./party/network.js')).dpmNetwork,
  'dpm.party-config': async () => (await import('./party/party-config.js')).dpmPartyConfig,
  'dpm.onboard-party': async () => (await import('./party/onboard-party.js')).dpmOnboardParty,
  'dpm.accept-invitations': async () => (await import('./party/accept-invitations.js')).dpmAcceptInvitations,
  'dpm.kick': async () => (await import('./party/kick.js')).dpmKick,
  'dpm.add-party': async () => (await import('./party/add-party.js')).dpmAddParty,
  'dpm.change-threshold': async () => (await import('./party/change-threshold.js')).dpmChangeThreshold,
  'dpm.workflow': async () => (await import('./party/workflow-control.js')).dpmWorkflow,
  'dpm.distribute-dars': async () => (await import('./party/distribute-dars.js')).dpmDistributeDars,
  'dpm.vetted-parity': async () => (await import('./party/vetted-parity.js')).dpmVettedParity,
  'dpm.deploy-contracts': async () => (await import('./party/deploy-contracts.js')).dpmDeployContracts,
  'dpm.governance': async () => (await import('./party/governance.js')).dpmGovernance,
  'dpm.governance-review': async () => (await import('./party/governance-review.js')).dpmGovernanceReview,
  'dpm.grant-rights': async () => (await import('./party/grant-rights.js')).dpmGrantRights,
  'token.credentials': async () => (await import('./token/credentials.js')).tokenCredentials,
  'token.deposit-account': async () => (await import('./token/deposit-account.js')).tokenDepositAccount,
  'token.deposit-address': async () => (await import('./token/deposit-address.js')).tokenDepositAddress,
  'token.wait-for-mint': async () => (await import('./token/wait-for-mint.js')).tokenWaitForMint,
  'token.withdraw-account': async () => (await import('./token/withdraw-account.js')).tokenWithdrawAccount,
  'token.withdraw': async () => (await import('./token/withdraw.js')).tokenWithdraw,
  'token.allocate': async () => (await import('./token/allocate.js')).tokenAllocate,
  'token.settle-allocation': async () => (await import('./token/settle-allocation.js')).tokenSettleAllocation,
  'token.dar-check': async () => (await import('./token/dar-check.js')).tokenDarCheck,
  'token.faucet': async () => (await import('./token/faucet.js')).tokenFaucet,
  'rewards.report': async () => (await import('./token/rewards-report.js')).rewardsReport,
  'sandbox.btc-send': async () => (await import('./simulated/btc-send.js')).sandboxBtcSend,
  'token.balance': async () => (await import('./token/balance.js')).tokenBalance,
  'token.transfer': async () => (await import('./token/transfer.js')).tokenTransfer,
  'token.distribute': async () => (await import('./token/distribute.js')).tokenDistribute,
  'token.accept-offers': offerKind('token.accept-offers'),
  'token.reject-offers': offerKind('token.reject-offers'),
  'token.cancel-offers': offerKind('token.cancel-offers'),
  'token.consolidate': async () => (await import('./token/consolidate.js')).tokenConsolidate,
  'token.split': async () => (await import('./token/split.js')).tokenSplit,
};

/** The step kinds a playbook may name: every name, and the kinds loaded so far. */
export interface StepKinds {
  /** every kind's `uses` name, loaded or not, sorted */
  readonly names: readonly string[];
  /** load the kinds of these names that exist (unknown names are left to validation to report) */
  load(names: Iterable<string>): Promise<ReadonlyMap<string, AnyStepKind>>;
  /** a kind loaded before; undefined for one not loaded or unknown */
  get(kind: string): AnyStepKind | undefined;
}

class LazyStepKinds implements StepKinds {
  readonly names = Object.keys(loaders).sort();
  private readonly loaded = new Map<string, AnyStepKind>();

  async load(names: Iterable<string>): Promise<ReadonlyMap<string, AnyStepKind>> {
    const wanted = [...new Set(names)].filter((name) => Object.hasOwn(loaders, name));
    await Promise.all(
      wanted
        .filter((name) => !this.loaded.has(name))
        .map(async (name) => {
          const kind = await loaders[name]!();
          if (kind?.kind !== name)
            throw new Error(`the module registered for step kind ${name} does not export it`);
          this.loaded.set(name, kind);
        }),
    );
    return new Map(wanted.map((name) => [name, this.loaded.get(name)!]));
  }

  get(kind: string): AnyStepKind | undefined {
    return this.loaded.get(kind);
  }
}

/** Every step kind, each loaded when first asked for. */
export const stepKinds: StepKinds = new LazyStepKinds();

/** Every step kind, loaded: for the schema command, the build and tests. */
export function loadAllStepKinds(): Promise<ReadonlyMap<string, AnyStepKind>> {
  return stepKinds.load(stepKinds.names);
}

/** A registry of these kinds alone, all loaded: for tests that add kinds of their own. */
export function fixedStepKinds(kinds: Iterable<AnyStepKind>): StepKinds {
  const table = new Map([...kinds].map((kind) => [kind.kind, kind]));
  return {
    names: [...table.keys()].sort(),
    load: (names) =>
      Promise.resolve(
        new Map([...names].flatMap((name) => (table.has(name) ? [[name, table.get(name)!]] : []))),
      ),
    get: (kind) => table.get(kind),
  };
}

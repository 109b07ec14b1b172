/**
 * Interpreting one submission into a transaction, with Daml's rules: a root action needs the submitters'
 * authority (controllers ⊆ actAs, signatories ⊆ actAs); inside a choice the authorizers are its controllers and
 * the exercised contract's signatories; a create needs all its signatories authorized, a fetch one stakeholder,
 * an exercise all its controllers. Every contract used must be active, not locked by a transaction in flight,
 * and known to the submitting parties (one of actAs/readAs is a stakeholder) or disclosed with the submission.
 * Every stakeholder of a created contract must be a party the synchronizer knows. Any failure aborts the whole
 * submission (the batch of five accepts fails as one). Nodes are numbered in pre-order, as the events are.
 */
import { createHash } from 'node:crypto';
import { errors, type LedgerError } from './errors.js';
import { decode, LfError, type LfType } from './lf.js';
import {
  type ChoiceContext,
  type Contract,
  type Implementation,
  type InterfaceDef,
  type TemplateDef,
  packageIdForm,
  stakeholders,
  unique,
} from './model.js';

export interface LedgerView {
  active(cid: string): Contract | undefined;
  /** true when a transaction in flight consumes the contract */
  locked(cid: string): boolean;
  partyKnown(party: string): boolean;
}

export type TxNode =
  | { kind: 'create'; nodeId: number; contract: Contract; witnesses: string[] }
  | {
      kind: 'exercise';
      nodeId: number;
      contract: Contract;
      iface: InterfaceDef | undefined;
      choice: string;
      arg: unknown;
      consuming: boolean;
      actors: string[];
      result: unknown;
      lastDescendantNodeId: number;
      witnesses: string[];
    };

export interface Submitters {
  actAs: string[];
  readAs: string[];
}

/** Thrown by template code for a failed Daml assertion. */
export class DamlAssertion extends Error {}

export class Tx implements ChoiceContext {
  readonly nodes: TxNode[] = [];
  /** contracts consumed by this transaction */
  readonly consumed = new Map<string, Contract>();
  /** contracts created by this transaction, in order */
  readonly created: Contract[] = [];
  /** the contracts this transaction used (exercised or fetched) from the ledger: locked when it commits */
  readonly inputs = new Set<string>();
  private nextNode = 0;
  private readonly createdIds = new Map<string, Contract>();
  private authorizers: Set<string>;
  private inherited: string[] = [];

  constructor(
    private readonly ledger: LedgerView,
    readonly submitters: Submitters,
    private readonly disclosed: ReadonlyMap<string, Contract>,
    /** microseconds; the ledger time of the transaction */
    readonly now: number,
    /** seeds contract ids: unique per transaction */
    private readonly seed: string,
  ) {
    this.authorizers = new Set(submitters.actAs);
  }

  /** A failed Daml assertion: the submission is rejected with DAML_INTERPRETATION_ERROR. */
  fail(message: string): never {
    throw new DamlAssertion(message);
  }

  require(condition: boolean, message: string): void {
    if (!condition) this.fail(message);
  }

  create<A>(template: TemplateDef<A>, arg: A): string {
    const contract: Contract<A> = {
      cid: `00${createHash('sha256').update(`${this.seed}/${this.nextNode}`).digest('hex')}`,
      template,
      arg,
      createdAt: this.now,
      offset: 0,
      nodeId: this.nextNode++,
    };
    const violated = template.ensure?.(arg);
    if (violated !== undefined) {
      this.fail(`Template precondition violated: ${packageIdForm(template.pkg, template.name)}: ${violated}`);
    }
    const signatories = template.signatories(arg);
    const missing = signatories.filter((p) => !this.authorizers.has(p));
    if (missing.length > 0) {
      throw errors.authorization(
        `CreateMissingAuthorization: create of ${packageIdForm(template.pkg, template.name)} requires authorizers ${signatories.join(', ')}, but only ${[...this.authorizers].join(', ')} were given`,
      );
    }
    const parties = stakeholders(contract);
    const unknown = parties.filter((p) => !this.ledger.partyKnown(p));
    if (unknown.length > 0) throw errors.unknownInformees(unknown);
    this.nodes.push({
      kind: 'create',
      nodeId: contract.nodeId,
      contract,
      witnesses: unique([...parties, ...this.inherited]),
    });
    this.created.push(contract);
    this.createdIds.set(contract.cid, contract);
    return contract.cid;
  }

  /** Fetches a contract of a template (or implementing an interface) and checks fetch authorization. */
  fetch<A = unknown>(cid: unknown, expected: TemplateDef<A> | InterfaceDef, what = 'contract'): Contract<A> {
    const contract = this.use(cid, what);
    checkType(contract, expected);
    const parties = stakeholders(contract);
    if (!parties.some((p) => this.authorizers.has(p))) {
      throw errors.authorization(
        `FetchMissingAuthorization: fetch of ${contract.cid} requires one of its stakeholders ${parties.join(', ')} as authorizer`,
      );
    }
    return contract as Contract<A>;
  }

  /** the interface view of a contract (e.g. the HoldingV1 view of a holding) */
  view<V>(contract: Contract, target: InterfaceDef): V {
    return implementationOf(contract, target).view(contract.arg) as V;
  }

  /** Exercises a choice; `via` names the interface when the choice is an interface choice. */
  exercise(cid: unknown, choice: string, choiceArg: unknown, via?: InterfaceDef): unknown {
    const contract = this.use(cid, 'contract');
    return this.exerciseOn(contract, choice, choiceArg, via);
  }

  /** the root action of a command (its authority is the submitters') */
  exerciseCommand(
    cid: string,
    choice: string,
    choiceArg: unknown,
    expected: TemplateDef | InterfaceDef,
  ): unknown {
    const contract = this.use(cid, 'contract');
    checkType(contract, expected);
    return this.exerciseOn(contract, choice, choiceArg, expected.kind === 'interface' ? expected : undefined);
  }

  private exerciseOn(
    contract: Contract,
    choice: string,
    rawArg: unknown,
    via: InterfaceDef | undefined,
  ): unknown {
    if (via !== undefined) {
      const declared = via.choices[choice];
      const impl = implementationOf(contract, via);
      const implBody = impl.choices[choice];
      if (declared === undefined || implBody === undefined)
        throw unknownChoice(choice, packageIdForm(via.pkg, via.name));
      // the argument was checked against the choice's LF type: the definitions may rely on its shape
      const arg = decodeArg(declared.argType, rawArg, choice) as never;
      const controllers = declared.controllers(impl.view(contract.arg) as never, arg);
      return this.run(contract, via, choice, arg, declared.consuming, controllers, (tx, self) =>
        implBody(tx, self, arg),
      );
    }
    const def = contract.template.choices[choice];
    if (def === undefined)
      throw unknownChoice(choice, packageIdForm(contract.template.pkg, contract.template.name));
    const arg = decodeArg(def.argType, rawArg, choice) as never;
    const controllers = def.controllers(contract.arg, arg);
    return this.run(contract, undefined, choice, arg, def.consuming, controllers, (tx, self) =>
      def.body(tx, self, arg),
    );
  }

  private run(
    contract: Contract,
    via: InterfaceDef | undefined,
    choice: string,
    arg: unknown,
    consuming: boolean,
    controllers: string[],
    body: (tx: Tx, self: Contract) => unknown,
  ): unknown {
    const missing = controllers.filter((p) => !this.authorizers.has(p));
    if (missing.length > 0) {
      throw errors.authorization(
        `ExerciseMissingAuthorization: exercise of ${choice} on ${contract.cid} requires authorizers ${controllers.join(', ')}, but only ${[...this.authorizers].join(', ')} were given`,
      );
    }
    const signatories = contract.template.signatories(contract.arg);
    const informees = unique([
      ...signatories,
      ...controllers,
      ...(consuming ? contract.template.observers(contract.arg) : []),
    ]);
    const node: Extract<TxNode, { kind: 'exercise' }> = {
      kind: 'exercise',
      nodeId: this.nextNode++,
      contract,
      iface: via,
      choice,
      arg,
      consuming,
      actors: controllers,
      result: undefined,
      lastDescendantNodeId: 0,
      witnesses: unique([...informees, ...this.inherited]),
    };
    this.nodes.push(node);
    if (consuming) this.consumed.set(contract.cid, contract);
    const saved = { authorizers: this.authorizers, inherited: this.inherited };
    this.authorizers = new Set([...controllers, ...signatories]);
    this.inherited = node.witnesses;
    try {
      node.result = body(this, contract) ?? {};
    } finally {
      this.authorizers = saved.authorizers;
      this.inherited = saved.inherited;
    }
    node.lastDescendantNodeId = this.nextNode - 1;
    return node.result;
  }

  /** a contract this transaction may use: active, not consumed already, not locked, known or disclosed */
  private use(cid: unknown, what: string): Contract {
    if (typeof cid !== 'string')
      this.fail(`expected a contract id for the ${what}, got ${JSON.stringify(cid)}`);
    if (this.consumed.has(cid)) {
      this.fail(
        `Update failed due to fetch of an inactive contract ${cid}: it was consumed earlier in this transaction`,
      );
    }
    const local = this.createdIds.get(cid);
    if (local !== undefined) return local;
    const contract = this.ledger.active(cid);
    if (contract === undefined) throw errors.contractNotFound(cid);
    const readers = [...this.submitters.actAs, ...this.submitters.readAs];
    const known = stakeholders(contract).some((p) => readers.includes(p)) || this.disclosed.has(cid);
    if (!known) throw errors.contractNotFound(cid);
    if (this.ledger.locked(cid)) throw errors.lockedContracts([cid]);
    this.inputs.add(cid);
    return contract;
  }
}

function checkType(contract: Contract, expected: TemplateDef | InterfaceDef): void {
  if (expected.kind === 'interface') {
    implementationOf(contract, expected);
    return;
  }
  const t = contract.template;
  if (
    t.pkg.name !== expected.pkg.name ||
    t.name.module !== expected.name.module ||
    t.name.entity !== expected.name.entity
  ) {
    throw errors.wronglyTyped(
      contract.cid,
      packageIdForm(expected.pkg, expected.name),
      packageIdForm(t.pkg, t.name),
    );
  }
}

/** the template's implementation of an interface, or undefined when it does not implement it */
export function findImplementation(
  contract: Contract,
  target: InterfaceDef,
): Implementation<unknown> | undefined {
  return contract.template.implements.find(
    (i) =>
      i.iface.pkg.name === target.pkg.name &&
      i.iface.name.module === target.name.module &&
      i.iface.name.entity === target.name.entity,
  );
}

export function implementationOf(contract: Contract, target: InterfaceDef): Implementation<unknown> {
  const impl = findImplementation(contract, target);
  if (impl === undefined) {
    throw errors.wronglyTyped(
      contract.cid,
      packageIdForm(target.pkg, target.name),
      packageIdForm(contract.template.pkg, contract.template.name),
    );
  }
  return impl;
}

function decodeArg(type: LfType, value: unknown, choice: string): unknown {
  try {
    return decode(type, value);
  } catch (error) {
    if (error instanceof LfError) throw errors.preprocessing(`choice ${choice} argument: ${error.message}`);
    throw error;
  }
}

function unknownChoice(choice: string, template: string): LedgerError {
  return errors.preprocessing(`Couldn't find requested choice ${choice} for template ${template}`);
}

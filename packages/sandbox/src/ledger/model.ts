/**
 * The sandbox ledger's model of Daml: packages, templates with their signatories, observers and choices,
 * interfaces with views and choices, and contracts. Templates are written in TypeScript (the sandbox does not run
 * Daml-LF) against this small framework; the interpreter (tx.ts) applies Daml's rules to them: authorization,
 * visibility, consuming choices, atomicity. Nothing here is token-specific.
 */
import type { LfType } from './lf.js';

export interface Package {
  id: string;
  name: string;
  version: string;
}

export interface QualifiedName {
  module: string;
  entity: string;
}

/** `<packageId>:<Module>:<Entity>`, the form responses carry */
export function packageIdForm(pkg: Package, name: QualifiedName): string {
  return `${pkg.id}:${name.module}:${name.entity}`;
}

/** `#<package-name>:<Module>:<Entity>`, the form requests should send */
export function packageNameForm(pkg: Package, name: QualifiedName): string {
  return `#${pkg.name}:${name.module}:${name.entity}`;
}

export interface InterfaceChoice {
  argType: LfType;
  consuming: boolean;
  /** the choice's controllers, from the interface view and the choice argument */
  controllers(view: never, arg: never): string[];
}

export interface InterfaceDef {
  kind: 'interface';
  pkg: Package;
  name: QualifiedName;
  choices: Record<string, InterfaceChoice>;
}

/**
 * What a choice body may do inside its transaction: the interpreter (tx.ts) implements it, with Daml's rules.
 */
export interface ChoiceContext {
  /** microseconds; the ledger time of the transaction */
  readonly now: number;
  /** a failed Daml assertion: the submission is rejected */
  fail(message: string): never;
  require(condition: boolean, message: string): void;
  create<A>(template: TemplateDef<A>, arg: A): string;
  fetch<A = unknown>(cid: unknown, expected: TemplateDef<A> | InterfaceDef, what?: string): Contract<A>;
  view<V>(contract: Contract, target: InterfaceDef): V;
  exercise(cid: unknown, choice: string, choiceArg: unknown, via?: InterfaceDef): unknown;
}

export interface ChoiceDef<A> {
  argType: LfType;
  consuming: boolean;
  controllers(arg: A, choiceArg: never): string[];
  /** the choice body; its return value is the exercise result (a JSON Daml value) */
  body(tx: ChoiceContext, self: Contract<A>, choiceArg: never): unknown;
}

/**
 * An interface choice's body in a template. Declared as a method so that a template may annotate the choice
 * argument with its own type (the argument has been checked against the choice's LF type before the call).
 */
export type ChoiceBody<A> = { body(tx: ChoiceContext, self: Contract<A>, choiceArg: never): unknown }['body'];

export interface Implementation<A> {
  iface: InterfaceDef;
  view(arg: A): unknown;
  choices: Record<string, ChoiceBody<A>>;
}

export interface TemplateDef<A = unknown> {
  kind: 'template';
  pkg: Package;
  name: QualifiedName;
  argType: LfType;
  signatories(arg: A): string[];
  observers(arg: A): string[];
  /** Daml's `ensure`: a reason the argument is refused, undefined when it holds */
  ensure?(arg: A): string | undefined;
  choices: Record<string, ChoiceDef<A>>;
  implements: Array<Implementation<A>>;
}

export interface Contract<A = unknown> {
  cid: string;
  template: TemplateDef<A>;
  arg: A;
  /** microseconds since the epoch */
  createdAt: number;
  /** the offset and node of its creation */
  offset: number;
  nodeId: number;
}

/** whether a contract is of a template (and so its argument of that template's type) */
export function isOf<A>(contract: Contract, template: TemplateDef<A>): contract is Contract<A> {
  return contract.template === (template as unknown);
}

export function stakeholders(contract: Contract): string[] {
  return unique([
    ...contract.template.signatories(contract.arg),
    ...contract.template.observers(contract.arg),
  ]);
}

export function unique<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}

export function templateKey(pkgName: string, name: QualifiedName): string {
  return `${pkgName}:${name.module}:${name.entity}`;
}

/**
 * Builds a template definition. Every template has Daml's implicit `Archive` choice (consuming, controlled by
 * its signatories); other choices and interface implementations default to none.
 */
export function template<A>(
  definition: Omit<TemplateDef<A>, 'kind' | 'choices' | 'implements'> &
    Partial<Pick<TemplateDef<A>, 'choices' | 'implements'>>,
): TemplateDef<A> {
  const archive: ChoiceDef<A> = {
    argType: { k: 'record', name: 'Archive', fields: {} },
    consuming: true,
    controllers: (arg) => definition.signatories(arg),
    body: () => ({}),
  };
  return {
    kind: 'template',
    implements: [],
    ...definition,
    choices: { Archive: archive, ...definition.choices },
  };
}

export function iface(definition: Omit<InterfaceDef, 'kind'>): InterfaceDef {
  return { kind: 'interface', ...definition };
}

/** Templates and interfaces the ledger can run, by package-name form and by package-id form. */
export class Catalog {
  private readonly byName = new Map<string, TemplateDef | InterfaceDef>();
  private readonly byId = new Map<string, TemplateDef | InterfaceDef>();
  private readonly packages = new Map<string, Package>();

  add(...definitions: Array<TemplateDef<never> | InterfaceDef>): this {
    for (const d of definitions) {
      this.byName.set(templateKey(d.pkg.name, d.name), d);
      this.byId.set(packageIdForm(d.pkg, d.name), d);
      this.packages.set(d.pkg.id, d.pkg);
    }
    return this;
  }

  /** a definition by `#name:Mod:Ent` or `pkgId:Mod:Ent`; undefined when unknown */
  lookup(identifier: string): TemplateDef | InterfaceDef | undefined {
    if (identifier.startsWith('#')) return this.byName.get(identifier.slice(1));
    return this.byId.get(identifier) ?? this.byName.get(this.nameFormOf(identifier) ?? '');
  }

  /** `pkgId:Mod:Ent` of a package this catalog knows → `name:Mod:Ent` (another version of the same package) */
  private nameFormOf(identifier: string): string | undefined {
    const [pkgId, ...rest] = identifier.split(':');
    const pkg = this.packages.get(pkgId ?? '');
    return pkg === undefined ? undefined : `${pkg.name}:${rest.join(':')}`;
  }

  /** a template by its package-id form as stored in the log */
  template(packageIdForm: string): TemplateDef | undefined {
    const found = this.byId.get(packageIdForm);
    return found?.kind === 'template' ? found : undefined;
  }

  /** the package of an identifier in package-id form */
  packageOf(packageIdForm: string): Package | undefined {
    return this.packages.get(packageIdForm.split(':')[0] ?? '');
  }

  packageList(): Package[] {
    return [...this.packages.values()];
  }
}

/**
 * Parses an identifier as requests carry it. Returns the package reference (`#name` or id) and the qualified
 * name, or undefined when the text is not `<pkg>:<Module>:<Entity>`.
 */
export function parseIdentifier(text: string): { pkg: string; name: QualifiedName } | undefined {
  const parts = text.split(':');
  if (parts.length !== 3 || parts.some((p) => p === '')) return undefined;
  const [pkg = '', module = '', entity = ''] = parts;
  return { pkg, name: { module, entity } };
}

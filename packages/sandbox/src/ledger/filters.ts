/**
 * Event formats (`eventFormat`, and the deprecated `filter` + `verbose`): which parties' events a reader asked
 * for, and per party which templates and interfaces, with or without the create argument, interface views and
 * created-event blobs (canton-json-api.md §3). Template ids match by package name, as Canton 3 does; a contract
 * matched only through an interface filter carries `createArgument: null` and its view.
 */
import { errors } from './errors.js';
import { type Catalog, type InterfaceDef, type TemplateDef, parseIdentifier, templateKey } from './model.js';

export interface InterfaceSelection {
  iface: InterfaceDef;
  view: boolean;
  blob: boolean;
}

interface PartyFilter {
  wildcard: { blob: boolean } | undefined;
  /** template key (`pkgname:Mod:Ent`) → include the blob */
  templates: Map<string, boolean>;
  interfaces: InterfaceSelection[];
}

export interface EventFormat {
  /** party → filter; undefined when the format is for any party only */
  byParty: Map<string, PartyFilter>;
  anyParty: PartyFilter | undefined;
  verbose: boolean;
}

export interface Selection {
  createArgument: boolean;
  blob: boolean;
  views: InterfaceSelection[];
  witnesses: string[];
}

/** Resolves an identifier of a filter; `unknown` for a package the participant has but the sandbox does not run. */
export type IdentifierResolver = (identifier: string) => {
  key: string;
  def: TemplateDef | InterfaceDef | undefined;
};

export function resolverFor(
  catalog: Catalog,
  packageNames: () => Set<string>,
  packageIds: () => Set<string>,
): IdentifierResolver {
  return (identifier) => {
    const parsed = parseIdentifier(identifier);
    if (parsed === undefined) throw errors.invalidArgument(`Invalid template or interface id: ${identifier}`);
    const def = catalog.lookup(identifier);
    if (def !== undefined) return { key: templateKey(def.pkg.name, def.name), def };
    if (parsed.pkg.startsWith('#')) {
      const name = parsed.pkg.slice(1);
      if (!packageNames().has(name)) throw errors.packageNamesNotFound([name]);
      return { key: templateKey(name, parsed.name), def: undefined };
    }
    if (!packageIds().has(parsed.pkg)) throw errors.templatesNotFound([identifier]);
    return { key: `${parsed.pkg}:${parsed.name.module}:${parsed.name.entity}`, def: undefined };
  };
}

/** Parses an EventFormat / TransactionFilter body (already shape-checked) into an EventFormat. */
export function parseEventFormat(
  value: { filtersByParty?: Record<string, unknown>; filtersForAnyParty?: unknown; verbose?: boolean },
  resolve: IdentifierResolver,
): EventFormat {
  const byParty = new Map<string, PartyFilter>();
  for (const [party, filters] of Object.entries(value.filtersByParty ?? {}))
    byParty.set(party, parseFilters(filters, resolve));
  const anyParty =
    value.filtersForAnyParty === undefined ? undefined : parseFilters(value.filtersForAnyParty, resolve);
  if (byParty.size === 0 && anyParty === undefined) {
    throw errors.invalidArgument('filtersByParty and filtersForAnyParty cannot be empty simultaneously');
  }
  return { byParty, anyParty, verbose: value.verbose ?? false };
}

function parseFilters(value: unknown, resolve: IdentifierResolver): PartyFilter {
  const filter: PartyFilter = { wildcard: undefined, templates: new Map(), interfaces: [] };
  const cumulative = (value as { cumulative?: unknown[] } | null)?.cumulative ?? [];
  if (cumulative.length === 0) filter.wildcard = { blob: false };
  for (const entry of cumulative) {
    const identifier = (entry as { identifierFilter?: Record<string, { value?: Record<string, unknown> }> })
      .identifierFilter;
    const [kind, body] = Object.entries(identifier ?? { Empty: {} })[0] ?? ['Empty', {}];
    const v = body?.value ?? {};
    const blob = v.includeCreatedEventBlob === true;
    switch (kind) {
      case 'WildcardFilter':
        filter.wildcard = { blob: blob || (filter.wildcard?.blob ?? false) };
        break;
      case 'TemplateFilter': {
        const { key } = resolve(String(v.templateId));
        filter.templates.set(key, blob || (filter.templates.get(key) ?? false));
        break;
      }
      case 'InterfaceFilter': {
        const { def } = resolve(String(v.interfaceId));
        if (def !== undefined && def.kind !== 'interface')
          throw errors.invalidArgument(`${String(v.interfaceId)} is a template, not an interface`);
        if (def !== undefined)
          filter.interfaces.push({ iface: def, view: v.includeInterfaceView === true, blob });
        break;
      }
      default:
        filter.wildcard ??= { blob: false };
    }
  }
  return filter;
}

/** the parties whose events the format asks for; undefined = every party (filtersForAnyParty) */
export function partiesOf(format: EventFormat): string[] | undefined {
  return format.anyParty !== undefined ? undefined : [...format.byParty.keys()];
}

/**
 * What a reader sees of a contract it is a witness of (`witnesses` = the parties that see the event); undefined
 * when no filter selects it.
 */
export function select(
  format: EventFormat,
  template: TemplateDef,
  witnesses: readonly string[],
): Selection | undefined {
  const seeing =
    format.anyParty !== undefined ? [...witnesses] : witnesses.filter((p) => format.byParty.has(p));
  if (seeing.length === 0) return undefined;
  const filters = [
    ...(format.anyParty ? [format.anyParty] : []),
    ...seeing.map((p) => format.byParty.get(p)).filter((f): f is PartyFilter => f !== undefined),
  ];
  const key = templateKey(template.pkg.name, template.name);
  let createArgument = false;
  let blob = false;
  const views: InterfaceSelection[] = [];
  for (const f of filters) {
    if (f.wildcard) {
      createArgument = true;
      blob ||= f.wildcard.blob;
    }
    const byTemplate = f.templates.get(key);
    if (byTemplate !== undefined) {
      createArgument = true;
      blob ||= byTemplate;
    }
    for (const sel of f.interfaces) {
      if (!implementsInterface(template, sel.iface)) continue;
      blob ||= sel.blob;
      const existing = views.find((v) => v.iface === sel.iface);
      if (existing) existing.view ||= sel.view;
      else views.push({ ...sel });
    }
  }
  if (!createArgument && views.length === 0) return undefined;
  return { createArgument, blob, views, witnesses: seeing };
}

function implementsInterface(template: TemplateDef, target: InterfaceDef): boolean {
  return template.implements.some(
    (i) =>
      i.iface.pkg.name === target.pkg.name &&
      i.iface.name.module === target.name.module &&
      i.iface.name.entity === target.name.entity,
  );
}

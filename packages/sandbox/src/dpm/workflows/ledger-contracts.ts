/**
 * The contracts workflow's submissions on the ledger (dpm-api.md §5.5): a contract definition whose template the
 * ledger runs (GovernanceRules of governance-core, the registry's InstrumentConfiguration …) is created on the
 * ledger as the decentralized party, its `fields` evaluated as the real coordinator evaluates them — positionally,
 * one per field of the template's record, every field in template order (the coordinator sends an unlabeled
 * record: a field left off, even a trailing Optional such as GovernanceRules' additionalProposers, makes the
 * submission malformed; DLC-link/decentralization-manager docs/CUSTOM_DAML_TEMPLATES.md, "Bootstrapping a
 * GovernanceRules") — and checked against the template's Daml types (COMMAND_PREPROCESSING_FAILED otherwise).
 * Definitions of templates the ledger does not run stay records on the party (see canton.ts).
 */
import { CantonError } from '../../canton.js';
import { LedgerError } from '../../ledger/errors.js';
import { decode, LfError, type LfType } from '../../ledger/lf.js';
import { type TemplateDef } from '../../ledger/model.js';
import type { DpmNode } from '../node.js';
import type { ContractDefinition, ContractsConfig, FieldDefinition } from './configs.js';

export interface FieldContext {
  decentralizedParty: string;
  operatorParty: string;
  participantParties: string[];
  governanceThreshold: number;
}

/** the ledger template a definition names in the resolved package, if the ledger runs it */
export function ledgerTemplate(
  node: DpmNode,
  packageName: string,
  definition: ContractDefinition,
): TemplateDef | undefined {
  const found = node.env.participant.ledger.catalog.lookup(
    `#${packageName}:${definition.module_name}:${definition.entity_name}`,
  );
  return found?.kind === 'template' ? found : undefined;
}

function partyMap(parties: string[]): Array<[string, Record<string, never>]> {
  return [...new Set(parties)].map((p) => [p, {}]);
}

/** one field's value in the ledger's JSON form; `type` (when known) labels positional records */
function fieldValue(def: FieldDefinition, type: LfType | undefined, ctx: FieldContext): unknown {
  const inner = type?.k === 'optional' ? type.of : type;
  switch (def.type) {
    case 'decentralized_party':
      return ctx.decentralizedParty;
    case 'operator_party':
      return ctx.operatorParty;
    case 'participant_party':
      return def.id;
    case 'text':
      return def.value;
    case 'int64':
      return String(def.value);
    case 'bool':
      return def.value;
    case 'instrument':
      return { admin: ctx.decentralizedParty, id: def.id };
    case 'attestors_set':
      return partyMap(ctx.participantParties);
    case 'party_set':
      return { map: partyMap(def.parties) };
    case 'rel_time':
      return { microseconds: String(def.microseconds) };
    case 'optional':
      return fieldValue(def.inner, inner, ctx);
    case 'none':
      return null;
    case 'record':
      return positionalRecord(def.fields, inner, ctx);
    case 'governance_threshold':
      return String(def.value ?? ctx.governanceThreshold);
  }
}

/** labels positional field values with the record's field names, in declaration order: one for each field */
function positionalRecord(
  fields: FieldDefinition[],
  type: LfType | undefined,
  ctx: FieldContext,
): Record<string, unknown> {
  if (type?.k !== 'record') {
    return Object.fromEntries(fields.map((f, i) => [`_${i}`, fieldValue(f, undefined, ctx)]));
  }
  const names = Object.keys(type.fields);
  if (fields.length !== names.length) {
    throw new LfError(
      '',
      `Expecting ${names.length} fields for record ${type.name}, but got ${fields.length}`,
    );
  }
  return Object.fromEntries(fields.map((f, i) => [names[i]!, fieldValue(f, type.fields[names[i]!], ctx)]));
}

/** the create argument of a definition, checked against the template's types */
export function createArgument(
  template: TemplateDef,
  definition: ContractDefinition,
  ctx: FieldContext,
): unknown {
  try {
    return decode(template.argType, positionalRecord(definition.fields, template.argType, ctx));
  } catch (error) {
    if (error instanceof LfError) {
      throw new CantonError(
        `COMMAND_PREPROCESSING_FAILED(8,0): create argument of ${template.name.module}:${template.name.entity} (contract ${definition.id}): ${error.message}`,
      );
    }
    throw error;
  }
}

/**
 * Creates the contract as the decentralized party (its members signed the prepared submission). The command id
 * names the run and the definition, so a coordinator that repeats the step after a restart creates nothing twice.
 */
export async function createOnLedger(
  node: DpmNode,
  config: ContractsConfig,
  template: TemplateDef,
  definition: ContractDefinition,
  ctx: FieldContext,
): Promise<string> {
  const ledger = node.env.participant.ledger;
  const party = config.decentralized_party_id;
  const commandId = `contracts/${config.instance_name}/${definition.id}`;
  const earlier = ledger.deduplicated('dpm-contracts', [party], commandId);
  if (earlier !== undefined) {
    const entry = ledger.findUpdate((e) => e.u === earlier.updateId);
    const created = entry?.t === 'tx' ? entry.nodes.find((n) => n.k === 'c') : undefined;
    if (created !== undefined) return created.cid;
  }
  try {
    const entry = await ledger.submit({
      participant: node.participantId,
      userId: 'dpm-contracts',
      actAs: [party],
      commandId,
      commands: [{ kind: 'create', template, arg: createArgument(template, definition, ctx) }],
      internal: true,
    });
    const created = entry.nodes.find((n) => n.k === 'c');
    if (created === undefined)
      throw new CantonError(`INTERNAL(4,0): the create of ${definition.id} created nothing`);
    return created.cid;
  } catch (error) {
    if (error instanceof LedgerError)
      throw new CantonError(`${error.code}(${error.category},0): ${error.cause}`);
    throw error;
  }
}

/**
 * The names the DPM contract enumerates that the step kinds' declarations check a `with` against — the workflow
 * kinds and the variants of a contract field — from its generated description (dpm-wire.generated.ts), without
 * the client's route table and wire checks (dpm-wire.ts, which re-exports them).
 */
import { contractDefinitionSchema, workflowRunSchema } from './dpm-wire.generated.js';

export const WORKFLOW_KINDS = workflowRunSchema.properties.kind.enum;
/** The variants of a contract field (`FieldDefinition`, §7), tagged by `type`. */
export const FIELD_DEFINITION_TYPES = contractDefinitionSchema.properties.fields.items.properties.type.enum;
export type WorkflowKind = (typeof WORKFLOW_KINDS)[number];

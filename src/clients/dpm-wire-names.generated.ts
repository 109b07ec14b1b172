// Generated from contracts/dpm.openapi.yaml by scripts/generate-dpm-wire.mjs (npm run contracts): do not edit.
// Names of the client’s view (dpm-wire.generated.ts) without its schemas, for the step kinds’ declarations.

/** `WorkflowRun.kind`: the kinds of DPM workflow. */
export const WORKFLOW_KINDS = [
  'Onboarding',
  'Kick',
  'Contracts',
  'Dars',
  'AddParty',
  'ChangeThreshold',
] as const;
/** `FieldDefinition.type`: the variants of a contract field (§7). */
export const FIELD_DEFINITION_TYPES = [
  'decentralized_party',
  'operator_party',
  'participant_party',
  'text',
  'int64',
  'bool',
  'instrument',
  'attestors_set',
  'party_set',
  'rel_time',
  'optional',
  'record',
  'governance_threshold',
  'none',
] as const;

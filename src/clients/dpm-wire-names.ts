/**
 * The names the DPM contract enumerates that the step kinds' declarations check a `with` against — the workflow
 * kinds and the variants of a contract field — generated from the document beside the client's schemas
 * (dpm-wire-names.generated.ts, `npm run contracts`) but apart from them: a `validate` that checks a workflow kind
 * does not build every schema of the contract (dpm-wire.generated.ts) nor load the client's route table and wire
 * checks (dpm-wire.ts, which re-exports these).
 */
import type { WORKFLOW_KINDS } from './dpm-wire-names.generated.js';

export { FIELD_DEFINITION_TYPES, WORKFLOW_KINDS } from './dpm-wire-names.generated.js';
export type WorkflowKind = (typeof WORKFLOW_KINDS)[number];

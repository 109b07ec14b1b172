/**
 * Deterministic ledger command ids (docs/architecture.md "Exactly once"). The same effect always gets the same id:
 * the id is a digest of the playbook's name, the target's name, the step id, the item key, what the command is for
 * and the inputs that define it. A resumed run, a retry after a lost answer and a second run of the same playbook
 * all submit under the same id, so the participant's command deduplication refuses a second landing
 * (`DUPLICATE_COMMAND`, settled by reading the ledger); a change of the inputs is a different effect with a
 * different id. Nothing of the run (its id, the time, the attempt) goes in.
 */
import { canonicalJson, sha256 } from '../digest.js';
import type { JsonValue } from '../steps/contract.js';

export interface CommandIdParts {
  playbook: string;
  target: string;
  step: string;
  /** the item key ("" for a step with one item) */
  item: string;
  /** what the command does, e.g. `burn`, `create-deposit-account` */
  purpose: string;
  /** the values that define the effect (amount, receiver, account …); never a secret */
  inputs: JsonValue;
}

/** Version of the derivation: changing it changes every id, so it only ever goes up with a reason. */
const DERIVATION = 1;

/**
 * `lb-<step>-<purpose>-<32 hex>`: readable in the participant's logs, within the ledger's alphabet
 * (`[A-Za-z0-9_:#/-]`) and far below its 255 characters.
 */
export function commandIdOf(parts: CommandIdParts): string {
  const digest = sha256(
    canonicalJson({
      v: DERIVATION,
      playbook: parts.playbook,
      target: parts.target,
      step: parts.step,
      item: parts.item,
      purpose: parts.purpose,
      inputs: parts.inputs,
    }),
  ).slice(0, 32);
  return `lb-${slug(parts.step)}-${slug(parts.purpose)}-${digest}`;
}

function slug(text: string): string {
  return (
    text
      .replace(/[^A-Za-z0-9_-]+/g, '_')
      .slice(0, 48)
      .replace(/^_+|_+$/g, '') || 'x'
  );
}

/**
 * The `with` block of token.distribute (and the limits it names).
 */
import type { FromSchema } from 'json-schema-to-ts';
import { durationSchema } from '../../../playbook/playbook-schema.js';
import { amountSchema, partyNameSchema } from '../common.declaration.js';
import { RESENDABLE } from '../distribution.declaration.js';

/** Lanes at most: one holding each, and the sender stays within the 10-holding limit (wrapped-api.md §5.4). */
export const MAX_LANES = 9;
export const DEFAULT_LANES = 8;
export const DEFAULT_EXPIRY = '168h';

const recipientSchema = {
  type: 'object',
  properties: {
    receiver: { type: 'string', description: 'The receiving party id, `<hint>::1220<64 hex>`.' },
    amount: amountSchema,
    reference: { type: 'string', description: 'Recorded as the transfer’s `splice…/reference` metadata.' },
  },
  required: ['receiver', 'amount'],
  additionalProperties: false,
} as const;

export const withSchema = {
  type: 'object',
  description:
    'Pay many receivers from one party, each exactly once: recipients checked completely before anything is sent (and with the party lookup, that the network knows each one), one checkpoint and one deterministic command id per recipient, several chains of holdings in flight at once, paced to what the network accepts, a receipt per recipient. A distribution is identified by its id (`distribution:`, or derived from the playbook name, the step id, the sender and the instrument), which every transfer carries on the ledger; a (receiver, reference) the sender already paid under another id is refused unless `pay_again: true`.',
  properties: {
    sender: {
      ...partyNameSchema,
      description:
        'The party that pays: a name under the target’s `parties:` written `{party, node}`. Its spendable holdings of the target’s instrument must cover every recipient still to pay.',
    },
    recipients: {
      description:
        'A CSV file (relative to the playbook) with the header `receiver,amount` and optionally `reference`, LF line ends, UTF-8 without a byte-order mark; or a list of `{receiver, amount, reference?}`. Receivers are party ids, each listed once; amounts are > 0 with at most 10 fraction digits.',
      anyOf: [
        { type: 'string', minLength: 1 },
        { type: 'array', items: recipientSchema, minItems: 1 },
      ],
    },
    reason: {
      type: 'string',
      maxLength: 1024,
      description: 'The `splice.lfdecentralizedtrust.org/reason` metadata of every transfer (default empty).',
    },
    distribution: {
      type: 'string',
      pattern: '^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$',
      description:
        'The distribution’s id on the ledger (every transfer carries it in its metadata, `ledgerbook.dev/distribution`): what a rerun reads to find whom it paid. Default: derived from the playbook’s `name:`, the step id, the sender and the instrument — not the file or the target’s name — so renaming the playbook or the step starts another distribution. A new id does not pay again a (receiver, reference) the sender paid under another id, unless `pay_again: true`.',
    },
    pay_again: {
      type: 'boolean',
      description:
        'Pay a (receiver, reference) of the file that this sender already paid under another distribution (a renamed playbook, another `distribution:`; two lines without a reference count as the same). Default false: the run refuses (exit 65) and lists who would be paid twice.',
    },
    resend: {
      type: 'array',
      items: { enum: [...RESENDABLE] },
      uniqueItems: true,
      description:
        'Offer again, under a new command id, to receivers whose offer in this distribution ended unpaid: `expired` (past `executeBefore`; the old offer is withdrawn at the end, its amount back with the sender), `rejected`, `withdrawn`. Default: none — they are reported, not offered again.',
    },
    expires: {
      ...durationSchema,
      description: 'How long each offer stays open for its receiver (`executeBefore`); default 168h.',
    },
    consolidate: {
      type: 'boolean',
      description:
        'Merge the sender’s spendable holdings into one at the end of a run that sent something (default true).',
    },
    receipts: {
      type: 'string',
      minLength: 1,
      description:
        'Where to write the receipts (JSON lines), relative to the playbook. Default: `steps/<step id>/receipts-<run>.jsonl` beside the journal.',
    },
  },
  required: ['sender', 'recipients'],
  additionalProperties: false,
} as const;

export type DistributeWith = FromSchema<typeof withSchema>;
export type With = DistributeWith;

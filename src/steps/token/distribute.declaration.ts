import { declareStep } from '../../playbook/step-declaration.js';
import { checkRecipients } from './distribute/recipients.declaration.js';
import { withSchema, type With } from './distribute/schema.js';

/** What validation reads of `token.distribute`; its run-time code is ./distribute.ts. */
export const tokenDistributeDeclaration = declareStep<With>({
  kind: 'token.distribute',
  summary:
    'Pay many receivers from one party exactly once, at network speed: recipients from a CSV file or a list, a receipt per recipient.',
  withSchema,
  outputs: {
    distribution: 'the distribution’s id, which every transfer of it carries in its metadata',
    receipts:
      'the receipts file (JSON lines, one per recipient: receiver, amount, reference, line, status offered|expired|settled|rejected|withdrawn, offer, update, command, distribution)',
    totals:
      '{recipients, amount, sent, sent_amount, found, offered, expired, settled, rejected, withdrawn}: sent and sent_amount count this run’s transfers, found the transfers this run was to send and found sent by another run; the statuses are what the ledger showed for each recipient',
  },
  needsTarget: true,
  check: checkRecipients,
});

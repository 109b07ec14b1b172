/**
 * The node's governance audit log (dpm-api.md §11 GET /governance/audit): one row per governance write this node
 * made for a party once it had the party's token — propose, confirm, execute, expire, cancel, cancel_proposal —
 * with `success` or `failed` and the error, the request as details (disclosed blobs replaced by their size), kept
 * in the node's tables. It tells what this node sent, whatever the ledger did later.
 */
import { nowSeconds } from '../../time.js';
import type { DpmNode } from '../node.js';
import type { AuditRow } from '../types.js';

export type AuditEvent = AuditRow['event_type'];

export function audit(
  node: DpmNode,
  entry: Pick<
    AuditRow,
    'event_type' | 'party_id' | 'member_party_id' | 'governance_type' | 'action_summary'
  > & {
    details: unknown;
    error?: string;
  },
): void {
  const rows = (node.state.audit ??= []);
  const now = nowSeconds();
  const { error, ...rest } = entry;
  rows.push({
    id: (rows.at(-1)?.id ?? 0) + 1,
    timestamp: now,
    ...rest,
    status: error === undefined ? 'success' : 'failed',
    ...(error === undefined ? {} : { error_message: error }),
    created_at: now,
  });
  node.save();
}

/** a party's rows, newest first */
export function auditRows(node: DpmNode, partyId: string, limit: number, offset: number): AuditRow[] {
  return (node.state.audit ?? [])
    .filter((r) => r.party_id === partyId)
    .reverse()
    .slice(offset, offset + limit);
}

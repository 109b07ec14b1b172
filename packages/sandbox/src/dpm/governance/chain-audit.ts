/**
 * The governance history on the ledger (dpm-api.md §11 GET /governance/chain-audit): the party's events of the
 * governance templates and of the proposals (GovernableAction), newest first — a rules contract created, a
 * proposal, a confirmation, an execution, an expiry or a cancellation — each with its offset, update id, acting
 * parties and arguments. Pages end at an offset boundary; `next_before_offset` continues below the page.
 */
import type { Ledger } from '../../ledger/ledger.js';
import { isTx } from '../../ledger/encode.js';
import type { StoredNode } from '../../ledger/entries.js';
import { findImplementation } from '../../ledger/tx.js';
import { GovernableActionI } from '../../governance/proposals.js';

export interface ChainAuditEntry {
  offset: number;
  timestamp: number;
  event_type: string;
  contract_id: string;
  template_id: string;
  package_id: string;
  governance_type: string;
  action_summary: string;
  choice?: string;
  acting_parties: string[];
  update_id: string;
  details: unknown;
}

const GOVERNANCE_TYPE: Record<string, string> = {
  'Governance.Rules:GovernanceRules': 'core_self',
  'Governance.Rules:GovernanceSelfConfirmation': 'core_self',
  'Governance.Confirmation:GovernanceConfirmation': 'core_domain',
  'Governance.ExecutionResult:GovernanceExecutionResult': 'core_domain',
};

const KEPT = new Set(['propose', 'confirm', 'execute', 'expire', 'cancel', 'execute_result']);

function classifyChoice(choice: string): string {
  if (choice.includes('_Cancel')) return 'cancel';
  if (choice.includes('_Expire')) return 'expire';
  if (choice.includes('_Execute')) return 'execute';
  if (choice.includes('_Confirm')) return 'confirm';
  return 'other';
}

function classifyCreated(entity: string, childOfExercise: boolean): string {
  if (entity.includes('Confirmation')) return 'confirm';
  if (entity.endsWith('Rules')) return 'create';
  if (entity.includes('ExecutionResult')) return 'execute_result';
  return childOfExercise ? 'create' : 'propose';
}

/** a Daml value as the server renders it: variants as `_variant`, maps left out */
function detailsOf(value: unknown): unknown {
  if (Array.isArray(value)) {
    const pairs = value.every((v) => Array.isArray(v) && v.length === 2);
    return pairs && value.length > 0 ? { _unsupported: 'map' } : value.map(detailsOf);
  }
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    if (typeof record['tag'] === 'string' && 'value' in record && Object.keys(record).length === 2)
      return { _variant: record['tag'], value: detailsOf(record['value']) };
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, detailsOf(v)]));
  }
  return value;
}

function split(tpl: string): { packageId: string; templateId: string } {
  const [packageId = '', module = '', entity = ''] = tpl.split(':');
  return { packageId, templateId: `${module}:${entity}` };
}

export function chainAudit(
  ledger: Ledger,
  partyId: string,
  limit: number,
  beforeOffset: number | undefined,
): { entries: ChainAuditEntry[]; hasMore: boolean } {
  const end = Math.min(beforeOffset === undefined ? ledger.end : beforeOffset - 1, ledger.end);
  if (limit === 0 || end <= ledger.pruned) return { entries: [], hasMore: false };
  const governanceTypeOf = (node: StoredNode): string | undefined => {
    const { templateId } = split(node.tpl);
    const known = GOVERNANCE_TYPE[templateId];
    if (known !== undefined) return known;
    if (
      node.k === 'e' &&
      node.if !== undefined &&
      split(node.if).templateId === 'Governance.Action:GovernableAction'
    )
      return 'core_domain';
    const template = ledger.catalog.template(node.tpl);
    return template !== undefined &&
      findImplementation(
        { template, arg: {}, cid: '', createdAt: 0, offset: 0, nodeId: 0 },
        GovernableActionI,
      )
      ? 'core_domain'
      : undefined;
  };
  const entries: ChainAuditEntry[] = [];
  for (const entry of ledger.entriesAfter(ledger.pruned, end)) {
    if (!isTx(entry)) continue;
    const exercises = entry.nodes.filter((n): n is Extract<StoredNode, { k: 'e' }> => n.k === 'e');
    for (const node of entry.nodes) {
      if (!node.wit.includes(partyId)) continue;
      const governanceType = governanceTypeOf(node);
      if (governanceType === undefined) continue;
      const { packageId, templateId } = split(node.tpl);
      const base = {
        offset: entry.o,
        timestamp: Math.floor(entry.rt / 1_000_000),
        contract_id: node.cid,
        template_id: templateId,
        package_id: packageId,
        governance_type: governanceType,
        update_id: entry.u,
      };
      if (node.k === 'c') {
        const child = exercises.some((x) => node.n > x.n && node.n <= x.last);
        const template = ledger.catalog.template(node.tpl);
        const entity = templateId.split(':')[1] ?? '';
        entries.push({
          ...base,
          event_type: classifyCreated(entity, child),
          action_summary: entity,
          acting_parties: template === undefined ? [] : template.signatories(node.arg),
          details: detailsOf(node.arg),
        });
      } else {
        entries.push({
          ...base,
          event_type: classifyChoice(node.ch),
          action_summary: node.ch,
          choice: node.ch,
          acting_parties: node.act,
          details: detailsOf(node.arg),
        });
      }
    }
  }
  const kept = entries.filter((e) => KEPT.has(e.event_type)).sort((a, b) => b.offset - a.offset);
  if (kept.length <= limit) return { entries: kept, hasMore: false };
  const boundary = (kept[limit - 1] as ChainAuditEntry).offset;
  const keep = kept.findIndex((e) => e.offset < boundary);
  if (keep < 0) return { entries: kept, hasMore: false };
  return { entries: kept.slice(0, keep), hasMore: true };
}

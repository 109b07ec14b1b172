/**
 * What each workflow step does to the synchronizer (dpm-api.md §14.1 item 7): onboarding creates the party at
 * SubmitFinal; kick / add-party / change-threshold change membership and threshold at their submit step; contracts
 * are checked at PrepareSubmissions and created at ExecuteSubmissions; DARs are uploaded on each peer at
 * UploadDars and on the coordinator at Complete. A thrown error fails the run with that text.
 */
import { CantonError, sha256, type ContractRecord, type PackageRecord } from '../../canton.js';
import { DarUploadError, uploadDarFiles } from '../dars.js';
import { ownerKeyOf, prefixOf } from '../keys.js';
import type { DpmNode } from '../node.js';
import { fetchPartyToken } from '../party-auth.js';
import type { RunRow } from '../types.js';
import type {
  AddPartyConfig,
  ChangeThresholdConfig,
  ContractDefinition,
  ContractsConfig,
  DarFile,
  DarsConfig,
  KickConfig,
  OnboardingConfig,
} from './configs.js';
import { parseConfig } from './configs.js';
import { type FieldContext, createArgument, createOnLedger, ledgerTemplate } from './ledger-contracts.js';

/** a failure of the coordinator's own work; the run fails with `Coordinator workflow failed: <message>` */
export class StepFailure extends Error {}

/** the onboarding threshold when none was given: ceil(owners / 2), at least 1 */
export function defaultThreshold(owners: number): number {
  return Math.max(1, Math.ceil(owners / 2));
}

/** Checked when a contracts run starts, before anything else (the real coordinator fails at once). */
export function contractsAuthProblem(node: DpmNode, row: RunRow): string | undefined {
  if (node.env.auth.insecure) return undefined;
  const config = parseConfig<ContractsConfig>(row.config_json);
  const configured = node.state.party_credentials.some(
    (c) => c.dec_party_id === config.decentralized_party_id,
  );
  return configured ? undefined : 'Auth not configured, cannot run contracts workflow';
}

export async function coordinatorWork(node: DpmNode, row: RunRow, step: string): Promise<void> {
  const canton = node.env.canton;
  switch (`${row.kind}/${step}`) {
    case 'Onboarding/SubmitFinal': {
      const config = parseConfig<OnboardingConfig>(row.config_json);
      const members = [node.participantId, ...row.expected_peers];
      const owners = members.map((p) => ({
        participantUid: p,
        ownerKey: ownerKeyOf(p, config.party_id_prefix),
      }));
      canton.createParty(
        config.party_id_prefix,
        owners,
        config.threshold ?? defaultThreshold(members.length),
      );
      return;
    }
    case 'Kick/ExportState': {
      const config = parseConfig<KickConfig>(row.config_json);
      const party = requireParty(node, config.decentralized_party_id);
      if (party.owners.length < 2) {
        throw new StepFailure(`Cannot kick from namespace with only ${party.owners.length} owner(s)`);
      }
      if (!party.participants.some((p) => p.participantUid === config.participant_id)) {
        throw new StepFailure(`Participant ${config.participant_id} not in P2P mapping`);
      }
      const owners = party.owners.map((o) => o.ownerKey);
      if (!owners.includes(config.namespace_fingerprint)) {
        throw new StepFailure(
          `Namespace fingerprint ${config.namespace_fingerprint} is not in the DNS owners list. Available owners: [${owners.map((o) => JSON.stringify(o)).join(', ')}]`,
        );
      }
      return;
    }
    case 'Kick/SubmitKick': {
      const config = parseConfig<KickConfig>(row.config_json);
      canton.removeMember(config.decentralized_party_id, config.participant_id, config.new_threshold);
      return;
    }
    case 'ChangeThreshold/ExportState': {
      const config = parseConfig<ChangeThresholdConfig>(row.config_json);
      const party = requireParty(node, config.decentralized_party_id);
      const count = party.owners.length;
      if (config.new_threshold < 1 || config.new_threshold > count) {
        throw new StepFailure(
          `new_threshold must be between 1 and ${count} (current namespace owner count); got ${config.new_threshold}`,
        );
      }
      if (config.new_threshold === party.threshold) {
        throw new StepFailure(
          `new_threshold ${config.new_threshold} is already the current threshold — nothing to change`,
        );
      }
      return;
    }
    case 'ChangeThreshold/Submit': {
      const config = parseConfig<ChangeThresholdConfig>(row.config_json);
      canton.setThreshold(config.decentralized_party_id, config.new_threshold);
      return;
    }
    case 'AddParty/ExportState': {
      const config = parseConfig<AddPartyConfig>(row.config_json);
      requireParty(node, config.decentralized_party_id);
      return;
    }
    case 'AddParty/SubmitClearOnboarding': {
      const config = parseConfig<AddPartyConfig>(row.config_json);
      const prefix = prefixOf(config.decentralized_party_id);
      canton.addMember(
        config.decentralized_party_id,
        {
          participantUid: config.new_participant_id,
          ownerKey: ownerKeyOf(config.new_participant_id, prefix),
        },
        config.new_threshold,
      );
      return;
    }
    case 'Contracts/PrepareSubmissions': {
      const config = parseConfig<ContractsConfig>(row.config_json);
      await requirePartyToken(node, config.decentralized_party_id);
      const count = config.participant_parties.length;
      if (count === 0) throw new StepFailure('No participant parties provided in contracts config');
      if (count < MIN_CONTRACTS_PARTICIPANTS) {
        throw new StepFailure(
          `At least ${MIN_CONTRACTS_PARTICIPANTS} participants required for contract operations, found ${count}`,
        );
      }
      for (const definition of config.contracts) {
        const pkg = resolveContract(node, config.decentralized_party_id, definition);
        const template = ledgerTemplate(node, pkg.name, definition);
        if (template !== undefined) createArgument(template, definition, fieldContext(node, config));
      }
      return;
    }
    case 'Contracts/ExecuteSubmissions': {
      const config = parseConfig<ContractsConfig>(row.config_json);
      const created = new Date().toISOString();
      const records: ContractRecord[] = [];
      for (const definition of config.contracts) {
        const pkg = resolveContract(node, config.decentralized_party_id, definition);
        const template = ledgerTemplate(node, pkg.name, definition);
        const contractId =
          template === undefined
            ? `00${sha256(`${config.decentralized_party_id}/${row.instance_name}/${definition.id}`)}`
            : await createOnLedger(node, config, template, definition, fieldContext(node, config));
        records.push({
          contractId,
          templateId: `${definition.module_name}:${definition.entity_name}`,
          packageId: pkg.packageId,
          packageName: pkg.name,
          packageVersion: pkg.version,
          createdAt: created,
          memberParties: config.participant_parties,
          operatorParty: config.operator_party,
          ...(template === undefined ? {} : { onLedger: true }),
        });
      }
      canton.addContracts(config.decentralized_party_id, records);
      return;
    }
    default:
      // every other coordinator step is signing and topology bookkeeping with no observable effect here
      return;
  }
}

/** the coordinator's work at Complete, before the Disconnect linger */
export function completionWork(node: DpmNode, row: RunRow): void {
  if (row.kind !== 'Dars') return;
  try {
    uploadDarFiles(node, parseConfig<DarsConfig>(row.config_json).dar_files);
  } catch (error) {
    if (error instanceof DarUploadError) throw new StepFailure(`Failed to upload DARs: ${error.message}`);
    throw error;
  }
}

/**
 * The contracts workflow's minimum of participants (the coordinator's PrepareSubmissions refuses fewer, failing the
 * run; decentralization-manager's MIN_PARTICIPANTS_CONTRACTS: "higher threshold for financial operations").
 */
export const MIN_CONTRACTS_PARTICIPANTS = 3;

/** a peer's work on one step of a run it participates in */
export function peerWork(
  node: DpmNode,
  row: RunRow,
  step: string,
  darFiles: readonly DarFile[] | undefined,
): void {
  if (row.kind === 'Dars' && step === 'UploadDars' && darFiles !== undefined) uploadDarFiles(node, darFiles);
  if (row.kind === 'AddParty' && step === 'SyncAcs' && row.dec_party_id !== undefined) {
    const config = JSON.parse(row.config_json) as { new_participant_id?: string | null };
    if (config.new_participant_id !== node.participantId) return;
    // the new member imports the party's active contracts: it needs every package they use
    const party = node.env.canton.party(row.dec_party_id);
    const uploaded = new Set(node.env.canton.uploadedPackages(node.participantId).map((p) => p.packageId));
    const missing = [...new Set((party?.contracts ?? []).map((c) => c.packageId))].filter(
      (id) => !uploaded.has(id),
    );
    if (missing.length > 0) {
      throw new StepFailure(
        `ACS import failed: packages not uploaded on this participant: ${missing.join(', ')}`,
      );
    }
  }
}

function fieldContext(node: DpmNode, config: ContractsConfig): FieldContext {
  return {
    decentralizedParty: config.decentralized_party_id,
    operatorParty: config.operator_party,
    participantParties: config.participant_parties,
    governanceThreshold: node.env.canton.party(config.decentralized_party_id)?.threshold ?? 2,
  };
}

function requireParty(
  node: DpmNode,
  partyId: string,
): NonNullable<ReturnType<DpmNode['env']['canton']['party']>> {
  const party = node.env.canton.party(partyId);
  if (party === undefined)
    throw new StepFailure(`Namespace ${partyId.split('::')[1] ?? partyId} not found in topology`);
  return party;
}

async function requirePartyToken(node: DpmNode, partyId: string): Promise<void> {
  if (node.env.auth.insecure) return;
  const row = node.state.party_credentials.find((c) => c.dec_party_id === partyId);
  if (row === undefined) throw new StepFailure(`No credentials configured for party ${partyId}`);
  const token = await fetchPartyToken(row);
  if (!token.ok) throw new StepFailure(`Failed to get auth token: ${token.error}`);
  node.env.noteCaller('party', token.subject);
}

/**
 * The package a contract definition names, as Canton resolves it on the coordinator's participant (`#name` → the
 * highest uploaded version), and Canton's checks: the template exists, and every participant hosting the party
 * has vetted the package.
 */
function resolveContract(node: DpmNode, partyId: string, definition: ContractDefinition): PackageRecord {
  const canton = node.env.canton;
  const uploaded = canton.uploadedPackages(node.participantId);
  let pkg: PackageRecord | undefined;
  if (definition.package_id.startsWith('#')) {
    const name = definition.package_id.slice(1);
    pkg = uploaded.filter((p) => p.name === name).sort((a, b) => compareVersions(b.version, a.version))[0];
    if (pkg === undefined) {
      throw new CantonError(
        `PACKAGE_NAMES_NOT_FOUND(11,0): The following package names do not match upgradable packages uploaded on this participant: [${name}]`,
      );
    }
  } else {
    pkg = uploaded.find((p) => p.packageId === definition.package_id);
    if (pkg === undefined)
      throw new CantonError(`PACKAGE_NOT_FOUND(11,0): Package ${definition.package_id} not found`);
  }
  const template = `${definition.module_name}:${definition.entity_name}`;
  if (pkg.templates.length > 0 && !pkg.templates.includes(template)) {
    throw new CantonError(
      `TEMPLATES_OR_INTERFACES_NOT_FOUND(11,0): Templates do not exist: [${pkg.packageId}:${template}]`,
    );
  }
  const hosts = canton.party(partyId)?.participants.map((p) => p.participantUid) ?? [node.participantId];
  const notVetted = hosts.filter((p) => !canton.isVetted(p, pkg.packageId));
  if (notVetted.length > 0) {
    throw new CantonError(
      `PACKAGE_NOT_VETTED_BY_RECIPIENTS(9,0): Not all receiving participants have vetted a package that is referenced by the submitted transaction: package ${pkg.packageId} (${pkg.name} ${pkg.version}) is not vetted by ${notVetted.join(', ')}`,
    );
  }
  return pkg;
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  const pb = b.split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x).localeCompare(String(y));
  }
  return 0;
}

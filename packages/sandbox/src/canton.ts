/**
 * The Canton synchronizer the simulated nodes share: decentralized parties (namespace owners, threshold, hosting
 * participants), the packages uploaded to and vetted by each participant, and the contracts created for each
 * party. The DPM workflows change it at their completion points; the DPM read routes and the participant ledger
 * APIs read it. Persisted as one JSON file (canton.json) in the state dir.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { DarRejected, readUploadedDar, type UploadedDar } from './participant-dar.js';
import { readJson, writeJsonAtomic } from './store.js';

export type Permission = 'submission' | 'confirmation' | 'observation';

export interface PartyOwner {
  participantUid: string;
  /** the owner's namespace key fingerprint in the party's decentralized namespace */
  ownerKey: string;
}

export interface ContractRecord {
  contractId: string;
  /** `Module.Path:Entity` */
  templateId: string;
  packageId: string;
  packageName: string;
  packageVersion: string;
  /** ISO-8601 */
  createdAt: string;
  /** the member parties and operator party the contract was created with */
  memberParties: string[];
  operatorParty: string;
  /**
   * created on the ledger: the party's contracts of this template are what the ledger has active now (a
   * consuming choice, such as a governance confirmation, replaces the contract under a new id)
   */
  onLedger?: boolean;
}

export interface PartyRecord {
  partyId: string;
  threshold: number;
  owners: PartyOwner[];
  participants: Array<{ participantUid: string; permission: Permission }>;
  contracts: ContractRecord[];
  createdAt: number;
}

export interface PackageRecord {
  packageId: string;
  name: string;
  version: string;
  templates: string[];
}

interface ParticipantPackages {
  uploaded: Record<string, PackageRecord>;
  vetted: string[];
}

interface CantonFile {
  version: 1;
  parties: PartyRecord[];
  packages: Record<string, ParticipantPackages>;
}

/** A failure as Canton reports it (`ERROR_ID(category,correlation): cause`). */
export class CantonError extends Error {}

export const GOVERNANCE_RULES_TEMPLATE = 'Governance.Rules:GovernanceRules';

export class Synchronizer {
  private readonly file: string;
  private data: CantonFile;

  constructor(stateDir: string) {
    this.file = join(stateDir, 'canton.json');
    this.data = readJson<CantonFile>(this.file) ?? { version: 1, parties: [], packages: {} };
  }

  private save(): void {
    writeJsonAtomic(this.file, this.data);
  }

  // ---- parties ---------------------------------------------------------------------------------------------

  party(partyId: string): PartyRecord | undefined {
    return this.data.parties.find((p) => p.partyId === partyId);
  }

  /** parties whose namespace this participant co-owns and whose hosting includes it (dpm-api.md §4) */
  partiesOf(participantUid: string): PartyRecord[] {
    return this.data.parties.filter(
      (p) =>
        p.owners.some((o) => o.participantUid === participantUid) &&
        p.participants.some((h) => h.participantUid === participantUid),
    );
  }

  allParties(): PartyRecord[] {
    return [...this.data.parties];
  }

  /**
   * Creates a decentralized party. Its namespace is derived from the owners and the threshold (as Canton's
   * decentralized-namespace hash is), so the same owners and threshold give the same party id.
   */
  createParty(prefix: string, owners: PartyOwner[], threshold: number): PartyRecord {
    const namespace = '1220' + sha256([...owners.map((o) => o.ownerKey)].sort().join(',') + `#${threshold}`);
    const partyId = `${prefix}::${namespace}`;
    const existing = this.party(partyId);
    if (existing !== undefined) return existing;
    const party: PartyRecord = {
      partyId,
      threshold,
      owners,
      participants: owners.map((o) => ({ participantUid: o.participantUid, permission: 'confirmation' })),
      contracts: [],
      createdAt: Date.now(),
    };
    this.data.parties.push(party);
    this.save();
    return party;
  }

  removeMember(partyId: string, participantUid: string, threshold: number): void {
    const party = this.requireParty(partyId);
    party.owners = party.owners.filter((o) => o.participantUid !== participantUid);
    party.participants = party.participants.filter((p) => p.participantUid !== participantUid);
    party.threshold = threshold;
    this.save();
  }

  addMember(partyId: string, owner: PartyOwner, threshold: number): void {
    const party = this.requireParty(partyId);
    if (!party.owners.some((o) => o.participantUid === owner.participantUid)) party.owners.push(owner);
    if (!party.participants.some((p) => p.participantUid === owner.participantUid)) {
      party.participants.push({ participantUid: owner.participantUid, permission: 'confirmation' });
    }
    party.threshold = threshold;
    this.save();
  }

  setThreshold(partyId: string, threshold: number): void {
    this.requireParty(partyId).threshold = threshold;
    this.save();
  }

  /** contract ids are derived from the run, so a coordinator that repeats its last step creates nothing twice */
  addContracts(partyId: string, contracts: ContractRecord[]): void {
    const party = this.requireParty(partyId);
    const known = new Set(party.contracts.map((c) => c.contractId));
    party.contracts.push(...contracts.filter((c) => !known.has(c.contractId)));
    this.save();
  }

  private requireParty(partyId: string): PartyRecord {
    const party = this.party(partyId);
    if (party === undefined) {
      throw new CantonError(
        `TOPOLOGY_MAPPING_NOT_FOUND(11,0): No PartyToParticipant mapping found for ${partyId}`,
      );
    }
    return party;
  }

  // ---- packages --------------------------------------------------------------------------------------------

  private packagesOf(participantUid: string): ParticipantPackages {
    let entry = this.data.packages[participantUid];
    if (entry === undefined) {
      entry = { uploaded: {}, vetted: [] };
      this.data.packages[participantUid] = entry;
    }
    return entry;
  }

  /**
   * Uploads a DAR to a participant (Admin API UploadDar): its main package and dependencies are stored and, when
   * `vet` holds, vetted. Idempotent, like Canton. A DAR that cannot be read fails as Canton would fail it.
   */
  uploadDar(participantUid: string, bytes: Uint8Array, filename: string, vet: boolean): UploadedDar {
    let info: UploadedDar;
    try {
      info = readUploadedDar(bytes, filename);
    } catch (error) {
      if (error instanceof DarRejected) {
        throw new CantonError(`INVALID_DAR(8,0): Dar file is corrupt: ${error.message}`);
      }
      throw error;
    }
    const entry = this.packagesOf(participantUid);
    for (const p of info.packages) {
      entry.uploaded[p.packageId] = {
        packageId: p.packageId,
        name: p.name,
        version: p.version,
        templates: p.templates,
      };
      if (vet && !entry.vetted.includes(p.packageId)) entry.vetted.push(p.packageId);
    }
    this.save();
    return info;
  }

  /**
   * Packages a participant has from the start (the token's, on every sandbox participant): uploaded and vetted,
   * without a DAR. Saves only when something was missing.
   */
  installPackages(
    participantUid: string,
    packages: ReadonlyArray<{ id: string; name: string; version: string }>,
  ): void {
    const entry = this.packagesOf(participantUid);
    let changed = false;
    for (const p of packages) {
      if (entry.uploaded[p.id] === undefined) {
        entry.uploaded[p.id] = { packageId: p.id, name: p.name, version: p.version, templates: [] };
        changed = true;
      }
      if (!entry.vetted.includes(p.id)) {
        entry.vetted.push(p.id);
        changed = true;
      }
    }
    if (changed) this.save();
  }

  uploadedPackages(participantUid: string): PackageRecord[] {
    return Object.values(this.packagesOf(participantUid).uploaded);
  }

  vettedPackages(participantUid: string): PackageRecord[] {
    const entry = this.packagesOf(participantUid);
    return entry.vetted.map(
      (id) => entry.uploaded[id] ?? { packageId: id, name: '', version: '', templates: [] },
    );
  }

  isVetted(participantUid: string, packageId: string): boolean {
    return this.packagesOf(participantUid).vetted.includes(packageId);
  }

  /** a snapshot for the admin API's GET /state */
  dump(): CantonFile {
    return structuredClone(this.data);
  }
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Packages every Canton participant carries of its own, before any DAR is uploaded: the Daml primitives and
 * standard library, and the participant's built-in admin workflows, whose versions follow the Canton release the
 * participant runs. Sandbox nodes run different patch releases, as the nodes of a real network do, so their
 * vetted lists differ by these packages: a parity check must compare the packages a DAR carries, not whole sets
 * (dpm-api.md §10). Ids are the sandbox's own (derived from name and version).
 */
import { createHash } from 'node:crypto';
import type { Package } from './ledger/model.js';

/** the Canton release of the node with this 0-based index: every second node runs the older release */
export function cantonReleaseOf(index: number): string {
  return index % 2 === 0 ? '3.5.1' : '3.4.12';
}

function platformPackage(name: string, version: string): Package {
  const id = createHash('sha256').update(`ledgerbook-sandbox/platform/${name}/${version}`).digest('hex');
  return { id, name, version };
}

export function platformPackages(index: number): Package[] {
  const release = cantonReleaseOf(index);
  return [
    platformPackage('daml-prim', '0.0.0'),
    platformPackage('daml-stdlib', '3.3.0'),
    platformPackage('ghc-stdlib', '3.3.0'),
    platformPackage('canton-builtin-admin-workflow-ping', release),
  ];
}

/** the platform packages of every release a sandbox node may run */
export const ALL_PLATFORM_PACKAGES: Package[] = [...platformPackages(0), ...platformPackages(1)];

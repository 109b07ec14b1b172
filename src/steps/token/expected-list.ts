/**
 * Expected package lists for token.dar-check, in the two formats the wrapped-token SDK used: its manifest
 * `{"cbtc_lib_version": "…", "packages": {"<package id>": {"name", "version"}}}` (the `expected_packages*.json`
 * files), and the list its DAR check reports (`[{"package_id", "name", "version"}]`). Checked with what is wrong
 * and where, so a bad file is refused before anything is sent.
 */
import { resolve } from 'node:path';
import { readDataFileSync } from '../../data-file.js';
import { SHA256 as PACKAGE_ID, type PackageRef } from '../party/packages-common.declaration.js';
import { EXPECTED_PACKAGE_LISTS, KNOWN_RELEASES } from './expected-packages.js';

export interface ExpectedList {
  /** where the list came from, for messages (`cbtc-lib-0.6.3`, a file name) */
  source: string;
  packages: PackageRef[];
}

export class ExpectedListError extends Error {
  constructor(
    message: string,
    /** JSON pointer inside the file */
    readonly at: string,
  ) {
    super(message);
  }
}

function entry(id: string, value: unknown, at: string): PackageRef {
  if (!PACKAGE_ID.test(id)) throw new ExpectedListError(`'${id}' is not a package id (64 hex digits)`, at);
  if (typeof value !== 'object' || value === null)
    throw new ExpectedListError('expected {"name", "version"}', at);
  const { name, version } = value as { name?: unknown; version?: unknown };
  if (typeof name !== 'string' || name === '')
    throw new ExpectedListError('`name` must be a string', `${at}/name`);
  if (typeof version !== 'string' || version === '')
    throw new ExpectedListError('`version` must be a string', `${at}/version`);
  return { package_id: id, name, version };
}

/** A list in either format; throws ExpectedListError with the pointer of the first problem. */
export function parseExpectedList(value: unknown, source: string): ExpectedList {
  let packages: PackageRef[];
  if (Array.isArray(value)) {
    packages = value.map((item: unknown, i) => {
      const id = (item as { package_id?: unknown } | null)?.package_id;
      if (typeof id !== 'string')
        throw new ExpectedListError('expected {"package_id", "name", "version"}', `/${i}`);
      return entry(id, item, `/${i}`);
    });
  } else if (typeof value === 'object' && value !== null && 'packages' in value) {
    const map = value.packages;
    if (typeof map !== 'object' || map === null || Array.isArray(map))
      throw new ExpectedListError('`packages` must map package ids to {"name", "version"}', '/packages');
    packages = Object.entries(map).map(([id, v]) => entry(id, v, `/packages/${id}`));
  } else {
    throw new ExpectedListError(
      'expected the SDK manifest {"cbtc_lib_version", "packages": {…}} or a list [{"package_id", "name", "version"}]',
      '',
    );
  }
  if (packages.length === 0) throw new ExpectedListError('the list names no package', '');
  packages.sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
  return { source, packages };
}

/** The SDK's manifests name a few dozen packages (a few KiB): a list a thousand times that is not one. */
export const MAX_EXPECTED_FILE = 4 * 1024 * 1024;

/** A list file; a DataFileError when the file cannot be read as text, an ExpectedListError when it is no list. */
export function readExpectedFile(path: string, baseDir: string): ExpectedList {
  const text = readDataFileSync(resolve(baseDir, path), MAX_EXPECTED_FILE);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ExpectedListError(`not JSON: ${(error as Error).message}`, '');
  }
  return parseExpectedList(value, path);
}

export function builtInList(name: string): ExpectedList | undefined {
  const list = EXPECTED_PACKAGE_LISTS[name];
  return list === undefined ? undefined : parseExpectedList(list, name);
}

export function builtInNames(): string[] {
  return Object.keys(EXPECTED_PACKAGE_LISTS);
}

export interface NodeReport {
  node: string;
  found: PackageRef[];
  missing: Array<PackageRef & { installed: string[] }>;
}

/** Found and missing per node, by exact package id; for a missing one, the other known releases installed. */
export function compareInstalled(
  node: string,
  expected: readonly PackageRef[],
  installed: ReadonlySet<string>,
): NodeReport {
  const report: NodeReport = { node, found: [], missing: [] };
  for (const p of expected) {
    if (installed.has(p.package_id)) {
      report.found.push(p);
      continue;
    }
    const others = [...installed]
      .map((id) => ({ id, release: KNOWN_RELEASES[id] }))
      .filter((r) => r.release?.name === p.name)
      .map((r) => `${r.release?.version ?? '?'} (${r.id.slice(0, 12)}…)`);
    report.missing.push({ ...p, installed: others });
  }
  return report;
}

export function formatReport(source: string, total: number, reports: readonly NodeReport[]): string {
  const lines = [`installed packages against ${source} (${total} expected):`];
  for (const r of reports) {
    lines.push(`  ${r.node}: ${r.found.length} found, ${r.missing.length} missing`);
    for (const m of r.missing) {
      const instead = m.installed.length > 0 ? `; installed instead: ${m.installed.join(', ')}` : '';
      lines.push(`    missing ${m.name} ${m.version} (${m.package_id.slice(0, 12)}…)${instead}`);
    }
  }
  return lines.join('\n');
}

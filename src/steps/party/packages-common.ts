/**
 * What the package and contract steps share: pinned DAR files (read, digest-checked and opened the way a
 * participant reads them), the participant × package vetting matrix the parity gate prints and fails on, and
 * the static checks of node names, and the one read they all make (each node's vetted packages).
 */
import { resolve } from 'node:path';
import type { ComparePeersResponse, VettedPackage } from '../../clients/dpm-wire.js';
import { readDataBytes } from '../../data-file.js';
import type { JsonValue, StepContext } from '../contract.js';
import { ServiceError, StepError } from '../../errors.js';
import { parseDuration } from '../../playbook/duration.js';
import type { Target } from '../../playbook/target.js';
import {
  checkDarBytes,
  MAX_DAR_BYTES,
  nodeNames,
  readProblem,
  type DarSpec,
  type LoadedDar,
  type PackageRef,
} from './packages-common.declaration.js';
import { readEach } from './workflow-runs.js';

export function timeoutMs(value: string | number | undefined, fallback: string): number {
  return parseDuration(value ?? fallback);
}

export function packageOutputs(packages: readonly PackageRef[]): JsonValue[] {
  return packages.map((p) => ({ package_id: p.package_id, name: p.name, version: p.version }));
}

/** `governance-core:0.2.0`, or the id's first 12 digits when the name is unknown. */
export function packageLabel(p: PackageRef): string {
  return p.name ? `${p.name}:${p.version || '?'}` : p.package_id.slice(0, 12);
}

export function shortId(id: string): string {
  return id.slice(0, 12);
}

/**
 * Order of two package versions (`1.2.10` > `1.2.9`; numeric parts compare as numbers, others as text);
 * how a `#name` reference picks the highest version.
 */
export function compareVersions(a: string, b: string): number {
  const split = (v: string): Array<number | string> =>
    v.split(/[.-]/).map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  const pa = split(a);
  const pb = split(b);
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

/**
 * At run time (the values may have come from expressions that check() could not see): read every file and
 * refuse the step before anything is sent when one is missing, differs from its pin or is not a DAR.
 */
export async function loadDars(files: readonly DarSpec[], baseDir: string): Promise<LoadedDar[]> {
  const loaded: LoadedDar[] = [];
  const problems: string[] = [];
  let hint: string | undefined;
  for (const spec of files) {
    let data: Buffer;
    try {
      data = await readDataBytes(resolve(baseDir, spec.path), MAX_DAR_BYTES);
    } catch (error) {
      const finding = readProblem(spec, error);
      problems.push(finding.message);
      hint ??= finding.hint;
      continue;
    }
    const checked = checkDarBytes(spec, data);
    if (checked.ok) loaded.push(checked.dar);
    else {
      problems.push(
        `${checked.finding.message}${checked.finding.expected ? ` (pinned ${checked.finding.expected})` : ''}`,
      );
      hint ??= checked.finding.hint;
    }
  }
  if (problems.length > 0) {
    throw new StepError(`refusing the DARs, nothing was sent: ${problems.join('; ')}`, { hint });
  }
  const names = new Set<string>();
  for (const dar of loaded) {
    if (names.has(dar.filename)) {
      throw new StepError(`two DARs are named ${dar.filename}: the DPM knows DARs by file name`, {
        hint: 'give each DAR a distinct file name',
      });
    }
    names.add(dar.filename);
  }
  return loaded;
}

/** Every package the DARs carry (main packages and their dependencies), once each, in DAR order. */
export function darPackages(dars: readonly LoadedDar[]): PackageRef[] {
  const seen = new Map<string, PackageRef>();
  for (const dar of dars) {
    for (const p of dar.info.packages) {
      if (!seen.has(p.packageId))
        seen.set(p.packageId, { package_id: p.packageId, name: p.name, version: p.version });
    }
  }
  return [...seen.values()];
}

/**
 * dpm-api.md §12a: the package ids a participant vetted, matched by name and version against what the DAR
 * manifests say. A node that lists the same name and version under another id contradicts the DAR.
 */
export function crossCheck(
  expected: readonly PackageRef[],
  vetted: readonly VettedPackage[],
  node: string,
): void {
  for (const p of expected) {
    if (!p.name) continue;
    const same = vetted.filter((v) => v.package_name === p.name && v.package_version === p.version);
    if (same.length > 0 && !same.some((v) => v.package_id === p.package_id)) {
      throw new StepError(
        `${node} vetted ${p.name} ${p.version} as ${same.map((v) => v.package_id).join(', ')}, but the DAR's manifest names it ${p.package_id}`,
        {
          hint: 'two different builds carry the same name and version: rebuild the DAR with a new version, or check which DAR was uploaded to that node before',
        },
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// The vetting matrix

export type Cell = 'vetted' | 'uploaded' | 'missing';

export interface Matrix {
  nodes: string[];
  packages: PackageRef[];
  /** node → package id → state */
  cells: Map<string, Map<string, Cell>>;
}

export interface NodePackages {
  vetted: readonly VettedPackage[];
  /** this node's uploaded packages (compare-peers `local_packages`), when they were read */
  uploaded?: ComparePeersResponse['local_packages'];
}

/** Names and versions of packages given by id only, from what the nodes report. */
export function describePackages(
  wanted: readonly PackageRef[],
  seen: ReadonlyMap<string, NodePackages>,
): PackageRef[] {
  return wanted.map((p) => {
    if (p.name) return p;
    for (const state of seen.values()) {
      const v = state.vetted.find((x) => x.package_id === p.package_id && x.package_name);
      if (v) return { ...p, name: v.package_name, version: v.package_version };
      const u = state.uploaded?.find((x) => x.package_id === p.package_id && x.name);
      if (u) return { ...p, name: u.name, version: u.version };
    }
    return p;
  });
}

/** Each node's vetted set, and its uploaded set where something is not vetted (when asked to). */
export async function readNodePackages(
  ctx: StepContext,
  nodes: readonly string[],
  wanted: readonly PackageRef[],
  showUploaded: boolean,
): Promise<Map<string, NodePackages>> {
  const vetted = await readEach(ctx, nodes, (node) =>
    ctx.clients.dpm(node).vettedPackages({ signal: ctx.signal }),
  );
  const seen = new Map<string, NodePackages>(nodes.map((node, i) => [node, { vetted: vetted[i] ?? [] }]));
  if (showUploaded) await addUploaded(ctx, seen, wanted);
  return seen;
}

/** Where a wanted package is not vetted, the node's uploaded packages (GET /packages/compare-peers). */
export async function addUploaded(
  ctx: StepContext,
  seen: Map<string, NodePackages>,
  wanted: readonly PackageRef[],
): Promise<void> {
  const lacking = [...seen].filter(([, state]) => {
    const ids = new Set(state.vetted.map((v) => v.package_id));
    return wanted.some((p) => !ids.has(p.package_id));
  });
  await readEach(ctx, lacking, async ([node, state]) => {
    try {
      const uploaded = (await ctx.clients.dpm(node).comparePeers({ signal: ctx.signal })).local_packages;
      seen.set(node, { ...state, uploaded });
    } catch (error) {
      // The uploaded mark is an annotation: without it the matrix still says what is not vetted.
      if (!(error instanceof ServiceError) || error.retryability === 'ambiguous') throw error;
      ctx.log('warn', `${node}: could not tell uploaded from missing packages (${error.message})`);
    }
  });
}

export function buildMatrix(
  nodes: readonly string[],
  packages: readonly PackageRef[],
  seen: ReadonlyMap<string, NodePackages>,
): Matrix {
  const cells = new Map<string, Map<string, Cell>>();
  for (const node of nodes) {
    const state = seen.get(node);
    const vetted = new Set(state?.vetted.map((v) => v.package_id));
    const uploaded = new Set(state?.uploaded?.map((u) => u.package_id));
    const row = new Map<string, Cell>();
    for (const p of packages) {
      row.set(
        p.package_id,
        vetted.has(p.package_id) ? 'vetted' : uploaded.has(p.package_id) ? 'uploaded' : 'missing',
      );
    }
    cells.set(node, row);
  }
  return { nodes: [...nodes], packages: [...packages], cells };
}

export function missingPairs(matrix: Matrix): Array<{ node: string; package: PackageRef; cell: Cell }> {
  const pairs: Array<{ node: string; package: PackageRef; cell: Cell }> = [];
  for (const node of matrix.nodes) {
    for (const p of matrix.packages) {
      const cell = matrix.cells.get(node)?.get(p.package_id) ?? 'missing';
      if (cell !== 'vetted') pairs.push({ node, package: p, cell });
    }
  }
  return pairs;
}

const MARK: Record<Cell, string> = { vetted: '✓', uploaded: '✗ uploaded', missing: '✗' };

/**
 * The matrix as text: one row per package, one column per node; rows after the first line are indented so the
 * block lines up under the log line that carries it.
 */
export function formatMatrix(matrix: Matrix): string {
  const labels = matrix.packages.map((p) => `${packageLabel(p)} (${shortId(p.package_id)})`);
  const first = Math.max('package'.length, ...labels.map((l) => l.length));
  const marks = matrix.nodes.map((n) =>
    matrix.packages.map((p) => MARK[matrix.cells.get(n)?.get(p.package_id) ?? 'missing']),
  );
  const widths = matrix.nodes.map((n, i) => Math.max(n.length, ...(marks[i] ?? []).map((m) => m.length)));
  const row = (label: string, cells: string[]): string =>
    [label.padEnd(first), ...cells.map((c, i) => c.padEnd(widths[i] ?? 1))].join('  ').trimEnd();
  const lines = [
    `vetted packages on ${matrix.nodes.join(', ')} (✓ vetted, ✗ not vetted; "✗ uploaded": uploaded but not vetted, a partial upload):`,
    row('package', matrix.nodes),
    ...matrix.packages.map((p, i) =>
      row(
        labels[i] ?? p.package_id,
        matrix.nodes.map((_n, j) => marks[j]?.[i] ?? MARK.missing),
      ),
    ),
  ];
  return lines.join('\n  ');
}

/** The refusal of the parity gate: every (node, package) pair that is not vetted, and what to do. */
export function parityError(matrix: Matrix, context: string): StepError {
  const pairs = missingPairs(matrix);
  const byNode = new Map<string, string[]>();
  for (const { node, package: p, cell } of pairs) {
    const list = byNode.get(node) ?? [];
    list.push(`${packageLabel(p)} (${shortId(p.package_id)}${cell === 'uploaded' ? '; uploaded' : ''})`);
    byNode.set(node, list);
  }
  const what = [...byNode].map(([node, list]) => `${node} has not vetted ${list.join(', ')}`).join('; ');
  const partial = pairs.some((p) => p.cell === 'uploaded');
  return new StepError(`${context}: vetted packages differ between participants: ${what}`, {
    hint:
      (partial
        ? 'a package uploaded but not vetted means that participant could not vet it (a partial upload): check its Canton logs, then distribute the DARs again'
        : 'distribute the DARs to the nodes that lack them (dpm.distribute-dars)') +
      ' — with `--fresh` if the distribution is an earlier step of this playbook (a resumed run keeps its finished steps). Nothing after this gate runs until every participant vetted every package.',
  });
}

/** Run-time counterpart of checkNode for values that came from expressions. */
export function requireNodes(target: Target | undefined, names: readonly string[], field: string): void {
  const known = nodeNames(target);
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    throw new StepError(`${field}: the target has no node ${unknown.map((n) => `'${n}'`).join(', ')}`, {
      hint: `nodes of this target: ${known.join(', ') || 'none'}`,
    });
  }
}

import { DataFileError } from '../../data-file.js';
import { defineStep, type JsonValue, type Outputs } from '../contract.js';
import { StepError } from '../../errors.js';
import { darPackages, loadDars, requireNodes } from '../party/packages-common.js';
import { ledgerNodes, tokenDarCheckDeclaration, type With } from './dar-check.declaration.js';
import {
  ExpectedListError,
  builtInList,
  builtInNames,
  compareInstalled,
  formatReport,
  parseExpectedList,
  readExpectedFile,
  type ExpectedList,
  type NodeReport,
} from './expected-list.js';
import { DEFAULT_EXPECTED_LIST } from './expected-packages.js';

interface Observed {
  list: ExpectedList;
  reports: NodeReport[];
}

async function expectedList(w: With, baseDir: string): Promise<ExpectedList> {
  try {
    if (w.expected_file !== undefined) return readExpectedFile(w.expected_file, baseDir);
    if (w.packages !== undefined) return parseExpectedList(w.packages, 'the packages listed in the playbook');
    if (w.dars !== undefined) {
      const dars = await loadDars(w.dars, baseDir);
      return { source: dars.map((d) => d.filename).join(', '), packages: darPackages(dars) };
    }
  } catch (error) {
    if (error instanceof DataFileError)
      throw new StepError(`with.expected_file ${w.expected_file ?? ''}: ${error.message}`, {
        hint: error.hint ?? 'the path is relative to the playbook',
      });
    if (!(error instanceof ExpectedListError)) throw error;
    throw new StepError(`with.expected_file ${w.expected_file ?? ''}${error.at}: ${error.message}`, {
      hint: 'write the SDK manifest format, or a list of {package_id, name, version}',
    });
  }
  const name = w.expected ?? DEFAULT_EXPECTED_LIST;
  const list = builtInList(name);
  if (list === undefined) {
    throw new StepError(`no expected package list named '${name}'`, {
      hint: `lists shipped with ledgerbook: ${builtInNames().join(', ')}`,
    });
  }
  return list;
}

function outputs(state: Observed): Outputs {
  const missing = state.reports.reduce((n, r) => n + r.missing.length, 0);
  const nodes: Record<string, JsonValue> = {};
  for (const r of state.reports) {
    nodes[r.node] = {
      found: r.found.length,
      missing: r.missing.map((m) => ({
        package_id: m.package_id,
        name: m.name,
        version: m.version,
        installed: m.installed,
      })),
    };
  }
  return {
    status: missing === 0 ? 'pass' : 'fail',
    expected: state.list.source,
    total_expected: state.list.packages.length,
    missing,
    nodes,
  };
}

/**
 * token.dar-check: asks each node's participant for its packages and compares them, by exact package id, with
 * the expected list: a list shipped with ledgerbook (the SDK's manifests), a file in either of the SDK's formats,
 * an inline list or DAR files. Prints found and missing per node (and, for a missing package, another release of
 * it the node has); fails when one is missing unless `on_missing: report`. Changes nothing.
 */
export const tokenDarCheck = defineStep<With, Observed>({
  ...tokenDarCheckDeclaration,
  async observe(ctx, w) {
    const nodes = ledgerNodes(w, ctx.target);
    requireNodes(ctx.target, nodes, 'nodes');
    const list = await expectedList(w, ctx.baseDir);
    const reports: NodeReport[] = [];
    for (const node of nodes) {
      const installed = new Set(await ctx.clients.ledger(node).packages({ signal: ctx.signal }));
      reports.push(compareInstalled(node, list.packages, installed));
    }
    const state = { list, reports };
    const missing = reports.some((r) => r.missing.length > 0);
    ctx.log(
      missing ? (w.on_missing === 'report' ? 'warn' : 'error') : 'info',
      formatReport(list.source, list.packages.length, reports),
    );
    return state;
  },
  plan(w, state) {
    const result = outputs(state);
    if (result['status'] === 'fail' && w.on_missing !== 'report') {
      const where = state.reports
        .filter((r) => r.missing.length > 0)
        .map((r) => `${r.node} lacks ${r.missing.map((m) => `${m.name} ${m.version}`).join(', ')}`)
        .join('; ');
      throw new StepError(`packages missing against ${state.list.source}: ${where}`, {
        hint: 'upload the missing DARs (dpm.distribute-dars), or set on_missing: report to only report. A list may name releases newer than a network runs: check which one yours expects',
      });
    }
    return { changes: [], outputs: result };
  },
  apply: (_ctx, _w, _item, _plan, state) => Promise.resolve(outputs(state)),
  reconcile: () => Promise.resolve({ status: 'not-done' }),
});

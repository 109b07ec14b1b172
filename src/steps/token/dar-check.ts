import { resolve } from 'node:path';
import type { FromSchema } from 'json-schema-to-ts';
import { StepError } from '../../errors.js';
import { defineStep, type JsonValue, type Outputs, type StaticFinding } from '../../engine/step.js';
import { hasExpression } from '../../playbook/expressions/template.js';
import { DataFileError, displayPath } from '../../data-file.js';
import {
  checkDarFiles,
  checkNodeList,
  darFileSchema,
  darPackages,
  loadDars,
  nodeNames,
  nodeNameSchema,
  packageIdSchema,
  requireNodes,
} from '../party/packages-common.js';
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

const withSchema = {
  type: 'object',
  description:
    'The wrapped token’s DAR check (wrapped-api.md §8.20): the packages installed on each node’s participant (`GET /v2/packages`) against an expected list, found and missing per node with name and version.',
  properties: {
    nodes: {
      type: 'array',
      items: nodeNameSchema,
      minItems: 1,
      description:
        'The nodes whose participants are checked (default: every node of the target with a ledger URL).',
    },
    expected: {
      type: 'string',
      minLength: 1,
      description: `A list shipped with ledgerbook: ${builtInNames()
        .map((n) => `\`${n}\``)
        .join(
          ', ',
        )} (the wrapped-token SDK's manifests; default \`${DEFAULT_EXPECTED_LIST}\`). Or use \`expected_file\`, \`packages\` or \`dars\`.`,
    },
    expected_file: {
      type: 'string',
      minLength: 1,
      description:
        'A JSON file (relative to the playbook) in the SDK’s manifest format `{"cbtc_lib_version", "packages": {"<id>": {"name", "version"}}}`, or a list `[{"package_id", "name", "version"}]`.',
    },
    packages: {
      type: 'array',
      minItems: 1,
      description: 'The expected packages, inline.',
      items: {
        type: 'object',
        properties: {
          package_id: packageIdSchema,
          name: { type: 'string', minLength: 1 },
          version: { type: 'string', minLength: 1 },
        },
        required: ['package_id', 'name', 'version'],
        additionalProperties: false,
      },
    },
    dars: {
      type: 'array',
      minItems: 1,
      items: darFileSchema,
      description:
        'DAR files pinned by sha256: every package they carry (main and dependencies) is expected.',
    },
    on_missing: {
      enum: ['fail', 'report'],
      description:
        '`fail` (default): the step fails when a node lacks an expected package; `report`: it only reports (outputs `status: fail`).',
    },
  },
  not: {
    anyOf: [
      { required: ['expected', 'expected_file'] },
      { required: ['expected', 'packages'] },
      { required: ['expected', 'dars'] },
      { required: ['expected_file', 'packages'] },
      { required: ['expected_file', 'dars'] },
      { required: ['packages', 'dars'] },
    ],
  },
  additionalProperties: false,
} as const;

type With = FromSchema<typeof withSchema>;

interface Observed {
  list: ExpectedList;
  reports: NodeReport[];
}

function ledgerNodes(w: With, target: Parameters<typeof nodeNames>[0]): string[] {
  return w.nodes ?? nodeNames(target).filter((n) => target?.nodes?.[n]?.ledger !== undefined);
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
  kind: 'token.dar-check',
  summary: 'Installed packages on each participant against the wrapped token’s expected list.',
  withSchema,
  outputs: {
    status: '`pass` when every node has every expected package, else `fail`',
    expected: 'which list was checked against',
    total_expected: 'how many packages the list names',
    missing: 'missing (node, package) pairs',
    nodes: 'per node: {found: <count>, missing: [{package_id, name, version, installed}]}',
  },
  needsTarget: true,
  check(w, target, baseDir) {
    const findings: StaticFinding[] = [...checkNodeList(w.nodes, target, '/nodes')];
    findings.push(...checkDarFiles(w.dars, baseDir, '/dars'));
    if (w.nodes === undefined && ledgerNodes(w, target).length === 0 && target !== undefined) {
      findings.push({
        pointer: '',
        message: 'no node of the target has a ledger URL to ask for its packages',
        hint: 'add nodes.<name>.ledger to the target, or name the nodes',
      });
    }
    if (
      typeof w.expected === 'string' &&
      !hasExpression(w.expected) &&
      builtInList(w.expected) === undefined
    ) {
      findings.push({
        pointer: '/expected',
        message: `no expected package list named '${w.expected}'`,
        expected: builtInNames().join(' or '),
      });
    }
    const file = w.expected_file;
    if (typeof file === 'string' && !hasExpression(file)) {
      try {
        readExpectedFile(file, baseDir);
      } catch (error) {
        if (error instanceof DataFileError) {
          findings.push({
            pointer: '/expected_file',
            message: `${file}: ${error.message}`,
            hint: error.hint === 'check the path' ? 'the path is relative to the playbook' : error.hint,
            ...(error.line === undefined
              ? {}
              : { at: { file: displayPath(resolve(baseDir, file)), line: error.line, col: error.col ?? 1 } }),
          });
        } else if (error instanceof ExpectedListError) {
          findings.push({
            pointer: '/expected_file',
            message: `${file}${error.at ? ` at ${error.at}` : ''}: ${error.message}`,
          });
        } else throw error;
      }
    }
    return findings;
  },
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

import type { FromSchema } from 'json-schema-to-ts';
import { resolve } from 'node:path';
import { DataFileError, displayPath } from '../../data-file.js';
import { declareStep, type StaticFinding } from '../../playbook/step-declaration.js';
import { hasExpression } from '../../playbook/expressions/template.js';
import {
  checkDarFiles,
  checkNodeList,
  darFileSchema,
  nodeNameSchema,
  nodeNames,
  packageIdSchema,
} from '../party/packages-common.declaration.js';
import { ExpectedListError, builtInList, builtInNames, readExpectedFile } from './expected-list.js';
import { DEFAULT_EXPECTED_LIST } from './expected-packages.js';

export function ledgerNodes(w: With, target: Parameters<typeof nodeNames>[0]): string[] {
  return w.nodes ?? nodeNames(target).filter((n) => target?.nodes?.[n]?.ledger !== undefined);
}

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

export type With = FromSchema<typeof withSchema>;

/** What validation reads of `token.dar-check`; its run-time code is ./dar-check.ts. */
export const tokenDarCheckDeclaration = declareStep<With>({
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
});

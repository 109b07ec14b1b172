import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StepError } from '../../errors.js';
import {
  buildMatrix,
  compareVersions,
  crossCheck,
  darPackages,
  describePackages,
  formatMatrix,
  loadDars,
  missingPairs,
  parityError,
  type NodePackages,
} from './packages-common.js';
import {
  checkDarBytes,
  checkDarFiles,
  checkNode,
  checkNodeList,
  type PackageRef,
} from './packages-common.declaration.js';
import { target, vetted } from './packages-testing.js';

const PLAYBOOKS = join(import.meta.dirname, '../../../playbooks');
const GOV = {
  path: 'dars/governance-core-0.2.0.dar',
  sha256: '26eb38f118883834a9f9defbe442a596fde485f3718e59ad1ca23684795d9e47',
};
const WRAPPED = {
  path: 'dars/wrapped-1.2.1.dar',
  sha256: '82eaa394024dd8fbe0f5c98961aacdbb7890ed3212e0e249a347abf27a01e7b6',
};
const GOV_ID = '0ba5f6c01995aa4b2ed054003750e1f2af09575cdf82251aeed0b9599b0d26dc';
const WRAPPED_ID = '5f6feaaf20545495aa7b69bbf5d1fa0e67309737e547e5a289c100048b8c742d';
const HOLDING_ID = '19f3a97871cbacaf7e3bae0d82cc6d98c4bf2014c9e61022962131e5eb31bd3c';

describe('pinned DAR files', () => {
  it('accepts a file that matches its pin and reads its packages from the manifest', () => {
    const checked = checkDarBytes(GOV, readFileSync(join(PLAYBOOKS, GOV.path)));
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.dar.filename).toBe('governance-core-0.2.0.dar');
    expect(checked.dar.info.packages.map((p) => [p.packageId, p.name, p.version])).toEqual([
      [GOV_ID, 'governance-core', '0.2.0'],
    ]);
  });

  it('refuses a file whose digest differs, saying what the digest is and what was pinned', () => {
    const checked = checkDarBytes(
      { ...GOV, sha256: WRAPPED.sha256 },
      readFileSync(join(PLAYBOOKS, GOV.path)),
    );
    expect(checked).toMatchObject({
      ok: false,
      finding: {
        pointer: '/sha256',
        message: `dars/governance-core-0.2.0.dar does not match its pinned sha256: the file's digest is ${GOV.sha256}`,
        expected: WRAPPED.sha256,
      },
    });
  });

  it('refuses a file with the right digest that is not a DAR', () => {
    const bytes = Buffer.from('not a zip');
    const digest = createHash('sha256').update(bytes).digest('hex');
    const checked = checkDarBytes({ path: 'x.dar', sha256: digest }, bytes);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? undefined : checked.finding.pointer).toBe('/path');
    expect(checked.ok ? undefined : checked.finding.message).toMatch(/^not a readable DAR: x\.dar: archive:/);
  });

  it('check(): a device or a folder is refused at once, not read', () => {
    const findings = checkDarFiles(
      [
        { path: '/dev/zero', sha256: GOV.sha256 },
        { path: 'dars', sha256: GOV.sha256 },
      ],
      PLAYBOOKS,
      '/files',
    );
    expect(findings.map((f) => [f.pointer, f.message])).toEqual([
      ['/files/0/path', 'cannot read /dev/zero: it is not a regular file (a device)'],
      ['/files/1/path', 'cannot read dars: it is a folder, not a file'],
    ]);
  });

  it('check(): points at the entry, skips expressions, names missing files and duplicate names', () => {
    const findings = checkDarFiles(
      [
        GOV,
        { path: '${{ inputs.dar }}', sha256: GOV.sha256 },
        { path: 'dars/missing.dar', sha256: GOV.sha256 },
        { path: 'other/governance-core-0.2.0.dar', sha256: GOV.sha256 },
        { ...WRAPPED, sha256: GOV.sha256 },
      ],
      PLAYBOOKS,
      '/files',
    );
    expect(findings.map((f) => [f.pointer, f.message])).toEqual([
      ['/files/2/path', 'cannot read dars/missing.dar: no such file'],
      [
        '/files/3/path',
        'two files are named governance-core-0.2.0.dar (entries 0 and 3): the DPM knows DARs by file name',
      ],
      ['/files/3/path', 'cannot read other/governance-core-0.2.0.dar: no such file'],
      [
        '/files/4/sha256',
        `dars/wrapped-1.2.1.dar does not match its pinned sha256: the file's digest is ${WRAPPED.sha256}`,
      ],
    ]);
  });

  it('loadDars: refuses before anything is sent, with every problem; reads good files otherwise', async () => {
    await expect(loadDars([GOV, { ...WRAPPED, sha256: GOV.sha256 }], PLAYBOOKS)).rejects.toThrow(
      /^refusing the DARs, nothing was sent: dars\/wrapped-1\.2\.1\.dar does not match its pinned sha256: .* \(pinned 26eb38f1/,
    );
    const dir = await mkdtemp(join(tmpdir(), 'lb-dars-'));
    await writeFile(join(dir, 'governance-core-0.2.0.dar'), readFileSync(join(PLAYBOOKS, GOV.path)));
    await expect(
      loadDars([GOV, { ...GOV, path: join(dir, 'governance-core-0.2.0.dar') }], PLAYBOOKS),
    ).rejects.toThrow('two DARs are named governance-core-0.2.0.dar');
    const dars = await loadDars([GOV, WRAPPED], PLAYBOOKS);
    expect(darPackages([...dars, ...dars]).map((p) => `${p.name}:${p.version}`)).toEqual([
      'governance-core:0.2.0',
      'wrapped:1.2.1',
      'wrapped-holding:1.0.0',
    ]);
  });
});

describe('cross-check against a node', () => {
  const expected: PackageRef[] = [{ package_id: GOV_ID, name: 'governance-core', version: '0.2.0' }];

  it('accepts the same id, or a node that does not have the package', () => {
    expect(() => crossCheck(expected, [vetted(GOV_ID, 'governance-core', '0.2.0')], 'node1')).not.toThrow();
    expect(() => crossCheck(expected, [], 'node1')).not.toThrow();
  });

  it('refuses a node that vetted the same name and version under another id', () => {
    expect(() => crossCheck(expected, [vetted(WRAPPED_ID, 'governance-core', '0.2.0')], 'node1')).toThrow(
      `node1 vetted governance-core 0.2.0 as ${WRAPPED_ID}, but the DAR's manifest names it ${GOV_ID}`,
    );
  });
});

describe('the vetting matrix', () => {
  const packages: PackageRef[] = [
    { package_id: GOV_ID, name: 'governance-core', version: '0.2.0' },
    { package_id: HOLDING_ID, name: '', version: '' },
  ];
  const seen = new Map<string, NodePackages>([
    [
      'node1',
      {
        vetted: [vetted(GOV_ID, 'governance-core', '0.2.0'), vetted(HOLDING_ID, 'wrapped-holding', '1.0.0')],
      },
    ],
    ['node2', { vetted: [vetted(GOV_ID, 'governance-core', '0.2.0')] }],
    ['node3', { vetted: [], uploaded: [{ package_id: GOV_ID, name: 'governance-core', version: '0.2.0' }] }],
  ]);
  const matrix = buildMatrix(['node1', 'node2', 'node3'], describePackages(packages, seen), seen);

  it('fills names in from what the nodes report and marks each cell', () => {
    expect(matrix.packages.map((p) => p.name)).toEqual(['governance-core', 'wrapped-holding']);
    expect(missingPairs(matrix).map((p) => `${p.node} ${p.package.name} ${p.cell}`)).toEqual([
      'node2 wrapped-holding missing',
      'node3 governance-core uploaded',
      'node3 wrapped-holding missing',
    ]);
  });

  it('prints one row per package, one column per node', () => {
    expect(formatMatrix(matrix).split('\n')).toEqual([
      'vetted packages on node1, node2, node3 (✓ vetted, ✗ not vetted; "✗ uploaded": uploaded but not vetted, a partial upload):',
      '  package                               node1  node2  node3',
      '  governance-core:0.2.0 (0ba5f6c01995)  ✓      ✓      ✗ uploaded',
      '  wrapped-holding:1.0.0 (19f3a97871cb)  ✓      ✗      ✗',
    ]);
  });

  it('fails with every missing (node, package) pair and what to do', () => {
    const error = parityError(matrix, 'parity gate');
    expect(error).toBeInstanceOf(StepError);
    expect(error.message).toBe(
      'parity gate: vetted packages differ between participants: node2 has not vetted wrapped-holding:1.0.0 (19f3a97871cb); node3 has not vetted governance-core:0.2.0 (0ba5f6c01995; uploaded), wrapped-holding:1.0.0 (19f3a97871cb)',
    );
    expect(error.hint).toMatch(/^a package uploaded but not vetted means that participant could not vet it/);
  });
});

describe('static checks of node names', () => {
  const t = target({ node1: {}, node2: {}, node3: {} });

  it('names an unknown node with the closest one, skips expressions, and finds duplicates', () => {
    expect(checkNode('nod2', t, '/coordinator')).toEqual([
      expect.objectContaining({
        pointer: '/coordinator',
        message: "the target has no node 'nod2'",
        hint: "did you mean 'node2'?",
      }),
    ]);
    expect(checkNode('${{ inputs.node }}', t, '/coordinator')).toEqual([]);
    expect(
      checkNodeList(['node2', 'node9', 'node2'], t, '/peers').map((f) => `${f.pointer} ${f.message}`),
    ).toEqual(["/peers/1 the target has no node 'node9'", '/peers/2 node2 is listed twice']);
  });
});

describe('package versions', () => {
  it('orders numerically part by part', () => {
    expect(['1.2.9', '1.2.10', '0.9.0', '1.2.10-rc1'].sort(compareVersions)).toEqual([
      '0.9.0',
      '1.2.9',
      '1.2.10',
      '1.2.10-rc1',
    ]);
  });
});

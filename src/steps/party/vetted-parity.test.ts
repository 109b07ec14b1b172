import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StepError } from '../../errors.js';
import { fakeContext, target, vetted } from './packages-testing.js';
import { dpmVettedParity } from './vetted-parity.js';

const PLAYBOOKS = join(import.meta.dirname, '../../../playbooks');
const GOV_ID = '0ba5f6c01995aa4b2ed054003750e1f2af09575cdf82251aeed0b9599b0d26dc';
const WRAPPED_ID = '5f6feaaf20545495aa7b69bbf5d1fa0e67309737e547e5a289c100048b8c742d';
const HOLDING_ID = '19f3a97871cbacaf7e3bae0d82cc6d98c4bf2014c9e61022962131e5eb31bd3c';
const t = target({ node1: {}, node2: {}, node3: {} });
const gov = vetted(GOV_ID, 'governance-core', '0.2.0');
const wrapped = vetted(WRAPPED_ID, 'wrapped', '1.2.1');
const holding = vetted(HOLDING_ID, 'wrapped-holding', '1.0.0');

describe('dpm.vetted-parity', () => {
  it('is in sync when every node vetted every package; names come from the nodes; the matrix is printed', async () => {
    const fake = fakeContext(t, {
      node1: { vetted: [gov, wrapped] },
      node2: { vetted: [wrapped, gov] },
      node3: { vetted: [gov, wrapped, holding] },
    });
    const w = { packages: [GOV_ID, { package_id: WRAPPED_ID }] };
    const state = await dpmVettedParity.observe(fake.ctx, w);
    expect(dpmVettedParity.plan(w, state, { key: '', value: w })).toEqual({
      changes: [],
      outputs: {
        packages: [
          { package_id: GOV_ID, name: 'governance-core', version: '0.2.0' },
          { package_id: WRAPPED_ID, name: 'wrapped', version: '1.2.1' },
        ],
        nodes: ['node1', 'node2', 'node3'],
      },
    });
    expect(fake.logs.map((l) => l.level)).toEqual(['info']);
    expect(fake.logs[0]?.message).toMatch(/governance-core:0\.2\.0 \(0ba5f6c01995\) {2}✓ {6}✓ {6}✓/);
    expect(fake.calls).toEqual(['node1 vettedPackages', 'node2 vettedPackages', 'node3 vettedPackages']);
  });

  it('fails (in plan) naming each missing pair; asks only the lacking node whether the package is uploaded', async () => {
    const fake = fakeContext(t, {
      node1: { vetted: [gov] },
      node2: { vetted: [gov] },
      node3: { vetted: [], uploaded: [{ package_id: GOV_ID, name: 'governance-core', version: '0.2.0' }] },
    });
    const w = { nodes: ['node1', 'node2', 'node3'], packages: [GOV_ID] };
    const state = await dpmVettedParity.observe(fake.ctx, w);
    expect(() => dpmVettedParity.plan(w, state, { key: '', value: w })).toThrow(StepError);
    expect(() => dpmVettedParity.plan(w, state, { key: '', value: w })).toThrow(
      'parity gate: vetted packages differ between participants: node3 has not vetted governance-core:0.2.0 (0ba5f6c01995; uploaded)',
    );
    expect(fake.calls).toEqual([
      'node1 vettedPackages',
      'node2 vettedPackages',
      'node3 vettedPackages',
      'node3 comparePeers',
    ]);
    expect(fake.logs[0]?.level).toBe('error');
    expect(fake.logs[0]?.message).toMatch(/✓ {6}✓ {6}✗ uploaded$/m);
  });

  it('show_uploaded: false reads the vetted sets only', async () => {
    const fake = fakeContext(t, { node1: { vetted: [gov] }, node2: { vetted: [] } });
    const w = { nodes: ['node1', 'node2'], packages: [GOV_ID], show_uploaded: false };
    const state = await dpmVettedParity.observe(fake.ctx, w);
    expect(() => dpmVettedParity.plan(w, state, { key: '', value: w })).toThrow(
      /node2 has not vetted governance-core:0\.2\.0/,
    );
    expect(fake.calls).toEqual(['node1 vettedPackages', 'node2 vettedPackages']);
  });

  it('expects every package the pinned DARs carry, dependencies included', async () => {
    const fake = fakeContext(t, { node1: { vetted: [wrapped] } }, PLAYBOOKS);
    const w = {
      nodes: ['node1'],
      dars: [
        {
          path: 'dars/wrapped-1.2.1.dar',
          sha256: '82eaa394024dd8fbe0f5c98961aacdbb7890ed3212e0e249a347abf27a01e7b6',
        },
      ],
    };
    const state = await dpmVettedParity.observe(fake.ctx, w);
    expect(() => dpmVettedParity.plan(w, state, { key: '', value: w })).toThrow(
      'node1 has not vetted wrapped-holding:1.0.0 (19f3a97871cb)',
    );
  });

  it('refuses nodes the target does not have, at run time too', async () => {
    const fake = fakeContext(t, {});
    await expect(dpmVettedParity.observe(fake.ctx, { nodes: ['node9'], packages: [GOV_ID] })).rejects.toThrow(
      "nodes: the target has no node 'node9'",
    );
    expect(fake.calls).toEqual([]);
  });

  it('check(): unknown nodes, a package listed twice, DAR files', () => {
    const findings = dpmVettedParity.check!(
      {
        nodes: ['node1', 'nodeX'],
        packages: [GOV_ID, { package_id: GOV_ID }],
      },
      t,
      PLAYBOOKS,
    );
    expect(findings.map((f) => `${f.pointer} ${f.message}`)).toEqual([
      "/nodes/1 the target has no node 'nodeX'",
      `/packages/1 package ${GOV_ID} is listed twice`,
    ]);
    expect(
      dpmVettedParity.check!({ dars: [{ path: 'dars/none.dar', sha256: GOV_ID }] }, t, PLAYBOOKS).map(
        (f) => f.pointer,
      ),
    ).toEqual(['/dars/0/path']);
  });
});

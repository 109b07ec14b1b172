import { defineStep } from '../contract.js';
import {
  buildMatrix,
  darPackages,
  describePackages,
  formatMatrix,
  loadDars,
  missingPairs,
  packageOutputs,
  parityError,
  readNodePackages,
  requireNodes,
  type Matrix,
} from './packages-common.js';
import { nodeNames, type PackageRef } from './packages-common.declaration.js';
import { dpmVettedParityDeclaration, type With } from './vetted-parity.declaration.js';

interface Observed {
  matrix: Matrix;
}

function expected(w: With): PackageRef[] {
  return (w.packages ?? []).map((p) =>
    typeof p === 'string'
      ? { package_id: p, name: '', version: '' }
      : { package_id: p.package_id, name: p.name ?? '', version: p.version ?? '' },
  );
}

/**
 * The parity gate (dpm-api.md §10, §12a): reads GET /packages/vetted on every node's own API, prints the
 * participant × package matrix every time, and fails — in `plan` too — when any expected package is not vetted
 * on any node, naming the pairs. It changes nothing.
 */
export const dpmVettedParity = defineStep<With, Observed>({
  ...dpmVettedParityDeclaration,
  async observe(ctx, w) {
    const nodes = w.nodes ?? nodeNames(ctx.target);
    requireNodes(ctx.target, nodes, 'nodes');
    const wanted = w.dars ? darPackages(await loadDars(w.dars, ctx.baseDir)) : expected(w);
    const seen = await readNodePackages(ctx, nodes, wanted, w.show_uploaded !== false);
    const matrix = buildMatrix(nodes, describePackages(wanted, seen), seen);
    ctx.log(missingPairs(matrix).length === 0 ? 'info' : 'error', formatMatrix(matrix));
    return { matrix };
  },
  plan(_w, { matrix }) {
    if (missingPairs(matrix).length > 0) throw parityError(matrix, 'parity gate');
    return {
      changes: [],
      outputs: { packages: packageOutputs(matrix.packages), nodes: matrix.nodes },
    };
  },
  // The gate changes nothing: plan is in sync or throws.
  apply: () => Promise.resolve({}),
  reconcile: () => Promise.resolve({ status: 'not-done' }),
});

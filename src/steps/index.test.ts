import { describe, expect, it } from 'vitest';
import { declareAllStepKinds, fixedStepKinds, loadAllStepKinds, stepKinds } from './index.js';

describe('the step kinds registry', () => {
  it('loads each kind from the module registered for it, under its own name', async () => {
    const all = await loadAllStepKinds();
    expect([...all.keys()].sort()).toEqual(stepKinds.names);
    for (const [name, kind] of all) expect(kind.kind).toBe(name);
  });

  it('declares each kind with the very declaration its kind carries', async () => {
    const declarations = await declareAllStepKinds();
    const kinds = await loadAllStepKinds();
    expect([...declarations.keys()].sort()).toEqual(stepKinds.names);
    for (const [name, declaration] of declarations) {
      const kind = kinds.get(name)!;
      expect(declaration.kind).toBe(name);
      expect(kind.summary).toBe(declaration.summary);
      expect(kind.withSchema).toBe(declaration.withSchema);
      expect(kind.outputs).toBe(declaration.outputs);
      expect(kind.needsTarget).toBe(declaration.needsTarget);
      expect(Object.getOwnPropertyDescriptor(kind, 'check')?.value).toBe(
        Object.getOwnPropertyDescriptor(declaration, 'check')?.value,
      );
    }
  });

  it('loads only the kinds asked for, and leaves unknown names to validation', async () => {
    const registry = fixedStepKinds((await loadAllStepKinds()).values());
    const loaded = await registry.load(['core.log', 'core.log', 'core.nope']);
    expect([...loaded.keys()]).toEqual(['core.log']);
    expect(registry.get('core.nope')).toBeUndefined();
    expect(registry.names).toEqual(stepKinds.names);
    const declared = await registry.declare(['core.wait', 'core.nope']);
    expect([...declared.keys()]).toEqual(['core.wait']);
    expect(registry.declaration('core.wait')).toBe(registry.get('core.wait'));
  });
});

import { describe, expect, it } from 'vitest';
import { fixedStepKinds, loadAllStepKinds, stepKinds } from './index.js';

describe('the step kinds registry', () => {
  it('loads each kind from the module registered for it, under its own name', async () => {
    const all = await loadAllStepKinds();
    expect([...all.keys()].sort()).toEqual(stepKinds.names);
    for (const [name, kind] of all) expect(kind.kind).toBe(name);
  });

  it('loads only the kinds asked for, and leaves unknown names to validation', async () => {
    const registry = fixedStepKinds((await loadAllStepKinds()).values());
    const loaded = await registry.load(['core.log', 'core.log', 'core.nope']);
    expect([...loaded.keys()]).toEqual(['core.log']);
    expect(registry.get('core.nope')).toBeUndefined();
    expect(registry.names).toEqual(stepKinds.names);
  });
});

import { describe, expect, it } from 'vitest';
import { PlanStaleError } from '../errors.js';
import { createAjv } from '../playbook/schema-check.js';
import { sha256 } from '../digest.js';
import {
  PlanGuard,
  carriedTextProblems,
  diffPlans,
  planCommand,
  planSchema,
  staleError,
  type PlannedStep,
  type SavedPlan,
} from './saved-plan.js';

const D = (c: string): string => c.repeat(64);

function step(id: string, extra: Partial<PlannedStep> = {}): PlannedStep {
  return {
    id,
    uses: 'core.shell',
    status: 'in-sync',
    withDigest: D('a'),
    stateDigest: D('b'),
    changes: 0,
    items: [],
    ...extra,
  };
}

const pay = step('pay', {
  uses: 'token.transfer',
  status: 'changes',
  changes: 2,
  items: [
    { key: 'alice', changes: [{ action: 'create', summary: 'send 1.0 to alice' }] },
    { key: 'bob', changes: [{ action: 'create', summary: 'send 2.0 to bob', details: { amount: '2.0' } }] },
  ],
});

const plan: SavedPlan = {
  format: 'ledgerbook-plan',
  version: 2,
  ledgerbook: '0.1.0',
  createdAt: '2026-01-01T00:00:00.000Z',
  playbook: { name: 'pb', file: 'playbooks/pb.yaml', digest: D('1'), text: 'name: pb\n' },
  inputs: { given: ['amount=1'], digest: D('2') },
  target: { name: 'testnet', spec: 'targets/testnet.yaml', digest: D('3'), text: 'name: testnet\n' },
  files: [{ path: 'data/recipients.csv', sha256: D('7'), bytes: 120 }],
  state: { where: '.ledgerbook', lastRun: { run: 'r1', at: '2026-01-01T00:00:00.000Z' } },
  changes: 2,
  steps: [
    step('mesh'),
    pay,
    step('report', { status: 'known-after-apply', dependsOn: ['pay'], withDigest: undefined }),
  ],
};

describe('the saved plan schema', () => {
  it('accepts what the engine writes and refuses an edited file', () => {
    const validate = createAjv().compile(planSchema);
    expect(validate(plan)).toBe(true);
    expect(validate({ ...plan, changes: -1 })).toBe(false);
    expect(validate({ ...plan, steps: [{ ...pay, status: 'maybe' }] })).toBe(false);
    expect(validate({ ...plan, secret: 'x' })).toBe(false);
    expect(validate({ ...plan, files: [{ path: '/etc/passwd', sha256: D('7'), bytes: 1 }] })).toBe(false);
    expect(validate({ ...plan, signature: { alg: 'HMAC-SHA256', key: '0'.repeat(16), value: D('8') } })).toBe(
      true,
    );
    expect(validate({ ...plan, signature: { alg: 'none', key: '0'.repeat(16), value: D('8') } })).toBe(false);
  });

  it('carries texts that must be the texts their digests name; only the built-in target has none', () => {
    const carried: SavedPlan = {
      ...plan,
      playbook: { ...plan.playbook, digest: sha256(plan.playbook.text) },
      target: { ...plan.target, digest: sha256(plan.target.text ?? '') },
    };
    expect(carriedTextProblems(carried, 'sandbox')).toEqual([]);
    const edited = { ...carried, playbook: { ...carried.playbook, text: 'name: other\n' } };
    expect(carriedTextProblems(edited, 'sandbox')).toEqual([
      '/playbook/text: its sha256 is not /playbook/digest',
    ]);
    const { text: _text, ...textless } = carried.target;
    expect(carriedTextProblems({ ...carried, target: textless }, 'sandbox')).toEqual([
      '/target/text: missing; only the built-in target `sandbox` has none',
    ]);
    const builtin = { name: 'sandbox', spec: 'sandbox', digest: sha256('sandbox') };
    expect(carriedTextProblems({ ...carried, target: builtin }, 'sandbox')).toEqual([]);
  });
});

describe('diffPlans', () => {
  it('finds nothing when the plan made now is the same', () => {
    expect(diffPlans(plan, structuredClone(plan))).toEqual([]);
  });

  it('names the playbook, inputs and target that changed', () => {
    const now = {
      ...plan,
      playbook: { ...plan.playbook, digest: D('4') },
      inputs: { ...plan.inputs, digest: D('5') },
      target: { ...plan.target, digest: D('6') },
    };
    expect(diffPlans(plan, now)).toEqual([
      'the playbook playbooks/pb.yaml changed (sha256 111111111111 → 444444444444)',
      'the inputs changed (sha256 222222222222 → 555555555555), defaults included',
      'the target targets/testnet.yaml changed (sha256 333333333333 → 666666666666)',
    ]);
  });

  it('names each step and item that changed, and how', () => {
    const now = {
      ...plan,
      steps: [
        step('mesh', { stateDigest: D('c') }),
        {
          ...pay,
          withDigest: D('d'),
          items: [
            { key: 'bob', changes: [{ action: 'create', summary: 'send 3.0 to bob' }] },
            { key: 'carol', changes: [{ action: 'create', summary: 'send 1.0 to carol' }] },
          ],
        },
        step('report', { status: 'changes', changes: 1 }),
        step('extra'),
      ],
    };
    expect(diffPlans(plan, now)).toEqual([
      "step 'mesh': the live state it observes changed (sha256 bbbbbbbbbbbb → cccccccccccc)",
      "step 'pay': its resolved `with` changed",
      `step 'pay' item 'alice': planned "send 1.0 to alice", now in sync`,
      `step 'pay' item 'bob': planned "send 2.0 to bob", now "send 3.0 to bob"`,
      `step 'pay' item 'carol': was in sync, now "send 1.0 to carol"`,
      "step 'report': was known after apply, now 1 change",
      "step 'extra': new, not in the saved plan",
    ]);
    expect(diffPlans(plan, { ...plan, steps: [step('mesh')] })).toEqual([
      "step 'pay': no longer in the playbook",
      "step 'report': no longer in the playbook",
    ]);
  });

  it('names a step known after apply whose items changed, or can no longer be told', () => {
    const later = (itemKeys?: string[]): PlannedStep =>
      step('credentials', {
        status: 'known-after-apply',
        dependsOn: ['onboard'],
        ...(itemKeys ? { itemKeys } : {}),
      });
    const saved = { ...plan, steps: [later(['node1', 'node2'])] };
    expect(diffPlans(saved, { ...plan, steps: [later(['node1', 'node2'])] })).toEqual([]);
    expect(diffPlans(saved, { ...plan, steps: [later(['node1', 'node2', 'node3'])] })).toEqual([
      "step 'credentials': its items were 'node1', 'node2', now 'node1', 'node2', 'node3'",
    ]);
    expect(diffPlans(saved, { ...plan, steps: [later()] })).toEqual([
      "step 'credentials': its items were 'node1', 'node2', now known after apply",
    ]);
  });

  it('the error lists at most 50 differences and says nothing was applied', () => {
    const error = staleError(
      'plan.json',
      plan,
      Array.from({ length: 60 }, (_, i) => `difference ${i}`),
    );
    expect(error).toBeInstanceOf(PlanStaleError);
    expect(error.exitCode).toBe(1);
    expect(error.message.split('\n')).toHaveLength(52);
    expect(error.message).toContain('nothing was applied');
    expect(error.message).toContain('… and 10 more');
    expect(error.hint).toBe(
      'make a new plan (ledgerbook plan playbooks/pb.yaml --target targets/testnet.yaml --input amount=1 --out plan.json), review it, and run that',
    );
  });

  it('the command that makes the plan again can be pasted: target and inputs given, each quoted for the shell', () => {
    const quoted = { ...plan, inputs: { ...plan.inputs, given: ["note=it's $HOME", 'n=[1, 2]'] } };
    expect(planCommand(quoted, 'out dir/plan.json')).toBe(
      `ledgerbook plan playbooks/pb.yaml --target targets/testnet.yaml --input 'note=it'\\''s $HOME' --input 'n=[1, 2]' --out 'out dir/plan.json'`,
    );
    const builtin = { ...plan, target: { name: 'sandbox', spec: 'sandbox', digest: sha256('sandbox') } };
    expect(planCommand(builtin, 'plan.json')).toBe(
      'ledgerbook plan playbooks/pb.yaml --input amount=1 --out plan.json',
    );
  });
});

describe('PlanGuard', () => {
  const guard = (): PlanGuard => new PlanGuard(plan, 'plan.json');
  const alice = [{ action: 'create' as const, summary: 'send 1.0 to alice' }];

  it('lets through exactly the saved changes, and in-sync items that stay in sync', () => {
    const g = guard();
    expect(g.checkItem('pay', 'alice', alice, false)).toBeUndefined();
    expect(g.checkItem('mesh', '', [], false)).toBeUndefined();
  });

  it('before the run changed anything, any difference stops it', () => {
    const g = guard();
    expect(() => g.checkItem('pay', 'alice', [], false)).toThrow(
      "step 'pay' item 'alice' had changes in the plan, now is in sync",
    );
    expect(() => g.checkItem('mesh', '', alice, false)).toThrow(PlanStaleError);
    expect(() => g.checkItem('pay', 'bob', alice, false)).toThrow(
      'now would make other changes than planned',
    );
  });

  it('after the run changed something, a difference is what earlier steps did: noted once per step', () => {
    const g = guard();
    expect(g.checkItem('pay', 'alice', [], true)).toBe(
      "step 'pay' item 'alice' differs from the saved plan after the earlier changes of this run: planned at apply time",
    );
    expect(g.checkItem('pay', 'bob', [], true)).toBeUndefined();
  });

  it('a step known after apply is planned at apply time, never held to the plan', () => {
    const g = guard();
    expect(g.knownAfterApply('report')).toBe(true);
    expect(g.checkItem('report', '', alice, false)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import type { SavedPlan } from '../../engine/saved-plan.js';
import type { Trust } from './plan.js';
import { code, renderPlanMarkdown } from './show.js';

const D = 'a'.repeat(64);
const UNSIGNED = { signed: false, key: false } as const;

function plan(items: number): SavedPlan {
  return {
    format: 'ledgerbook-plan',
    version: 2,
    ledgerbook: '0.1.0',
    createdAt: '2026-01-01T00:00:00.000Z',
    playbook: { name: 'pay', file: 'playbooks/pay.yaml', digest: D, text: 'name: pay\n' },
    inputs: { given: ['amount=1'], digest: D },
    target: { name: 'testnet', spec: 'targets/testnet.yaml', digest: D, text: 'name: testnet\n' },
    files: [{ path: 'recipients.csv', sha256: D, bytes: 2048 }],
    state: { where: '.ledgerbook' },
    changes: items,
    steps: [
      {
        id: 'send',
        uses: 'core.shell',
        status: 'changes',
        changes: items,
        items: Array.from({ length: items }, (_, i) => ({
          key: `r${i}`,
          changes: [{ action: 'run', summary: `run \`pay ${i}\` | @team <b>now</b>` }],
        })),
      },
      {
        id: 'report',
        uses: 'core.log',
        status: 'known-after-apply',
        dependsOn: ['send'],
        changes: 0,
        items: [],
      },
      { id: 'quiet', uses: 'core.log', status: 'skipped', changes: 0, items: [] },
    ],
  };
}

describe('code', () => {
  it('wraps any text in a code span that it cannot close', () => {
    expect(code('plain')).toBe('`plain`');
    expect(code('a `b` c')).toBe('``a `b` c``');
    expect(code('`edge`')).toBe('`` `edge` ``');
    expect(code('two\nlines')).toBe('`two lines`');
  });
});

describe('renderPlanMarkdown', () => {
  it('a table of steps, each change in a code span (no mention, no HTML, no table break), known after apply said', () => {
    const text = renderPlanMarkdown(plan(2), 'plan.json', UNSIGNED);
    expect(text).toContain('**2 changes** in 1 of 3 steps, and 1 step known after apply.');
    expect(text).toContain('| `send` | `core.shell` | **2 changes** |');
    expect(text).toContain('| `report` | `core.log` | known after apply (reads outputs of `send`) |');
    expect(text).toContain('| `quiet` | `core.log` | skipped (`if:` is false) |');
    expect(text).toContain('- `r0`: run — ``run `pay 0` | @team <b>now</b>``');
    expect(text).toContain('`ledgerbook run plan.json`');
    expect(text).toContain(
      'It carries the playbook and the target it applies, and holds 1 data file to their digest: `recipients.csv` (2048 bytes, sha256 `aaaaaaaaaaaa`).',
    );
    expect(text).toContain(
      'Not signed: nothing but its own digests vouches for it (with `LEDGERBOOK_PLAN_KEY` set, `plan --out` signs).',
    );
  });

  it('says whether the plan is signed and what the signature is worth here', () => {
    const says = (trust: Trust): string => renderPlanMarkdown(plan(1), 'plan.json', trust);
    expect(says({ signed: false, key: true })).toContain(
      '**Not signed**: `ledgerbook run` refuses it while `LEDGERBOOK_PLAN_KEY` is set.',
    );
    const keyId = '0123456789abcdef';
    expect(says({ signed: true, key: 'valid', keyId })).toContain(
      '**Signed** (HMAC-SHA-256, key id `0123456789abcdef`); the signature verifies with `LEDGERBOOK_PLAN_KEY`.',
    );
    expect(says({ signed: true, key: 'none', keyId })).toContain(
      '`LEDGERBOOK_PLAN_KEY` is not set here, so the signature was not checked.',
    );
    expect(says({ signed: true, key: 'invalid', keyId })).toContain('**The signature does not verify**');
    expect(says({ signed: true, key: 'other-key', keyId })).toContain('**Signed with another key**');
  });

  it('a plan for review only says so and offers no command to apply it', () => {
    const text = renderPlanMarkdown({ ...plan(1), untrusted: true }, 'plan.json', UNSIGNED);
    expect(text).toContain('> **For review only.** Made with `plan --untrusted`');
    expect(text).not.toContain('`ledgerbook run plan.json`');
  });

  it('lists 25 items per step and says how many more', () => {
    const text = renderPlanMarkdown(plan(40), 'plan.json', UNSIGNED);
    expect(text).toContain('`r24`');
    expect(text).not.toContain('`r25`');
    expect(text).toContain('- … and 15 more items (the plan file lists them all)');
  });

  it('a plan with nothing to do says so', () => {
    const empty = { ...plan(0), steps: [] };
    expect(renderPlanMarkdown(empty, 'p.json', UNSIGNED)).toContain(
      '**No changes.** The live state matches the playbook.',
    );
  });
});

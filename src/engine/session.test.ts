import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { offlineClients } from '../clients/factory.js';
import { StepError } from '../errors.js';
import { loadPlaybook } from '../validation/validate.js';
import { systemClock } from './clock.js';
import { EventBus } from './event-bus.js';
import { Masker } from './masker.js';
import { runPlaybook, type RunMode } from './run.js';
import { defineStep, type AnyStepKind } from '../steps/contract.js';
import { fixedStepKinds } from '../steps/index.js';

/** What a test kind's sessions went through, and what each call of the kind saw as `ctx.session`. */
interface Trace {
  opened: number;
  closed: number;
  /** the session each call saw, by the call's name */
  seen: Array<[string, unknown]>;
}

/** A kind with a session: two items, `b` fails for good when applied (with `fail: true`). */
function sessionKind(trace: Trace): AnyStepKind {
  return defineStep<{ fail?: boolean }, null, string, { id: number }>({
    kind: 'test.session',
    summary: 'a step with a session',
    withSchema: { type: 'object', properties: { fail: { type: 'boolean' } }, additionalProperties: false },
    outputs: {},
    needsTarget: false,
    concurrency: 1,
    session: {
      open: () => ({ id: ++trace.opened }),
      close: (session) => {
        trace.closed++;
        trace.seen.push(['close', session]);
      },
    },
    items(_w, ctx) {
      trace.seen.push(['items', ctx.session]);
      return [
        { key: 'a', value: 'a' },
        { key: 'b', value: 'b' },
      ];
    },
    observe(ctx) {
      trace.seen.push(['observe', ctx.session]);
      return Promise.resolve(null);
    },
    plan: (_w, _state, item) => ({ changes: [{ action: 'create', summary: `make ${item.key}` }] }),
    async apply(ctx, w, item) {
      trace.seen.push(['apply', ctx.session]);
      await ctx.record({ action: 'make', item: item.key });
      if (w.fail === true && item.key === 'b') throw new StepError('b cannot be made');
      return {};
    },
    reconcile: () => Promise.resolve({ status: 'not-done' }),
  });
}

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lb-session-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(mode: RunMode, fail: boolean): Promise<{ trace: Trace; status: string }> {
  const trace: Trace = { opened: 0, closed: 0, seen: [] };
  const registry = fixedStepKinds([sessionKind(trace)]);
  const file = join(dir, 'session.yaml');
  await writeFile(
    file,
    `name: session\nsteps:\n  - id: s\n    uses: test.session\n    with: { fail: ${fail} }\n`,
  );
  const playbook = await loadPlaybook(file, { registry });
  const masker = new Masker();
  const result = await runPlaybook({
    playbook,
    inputs: {},
    target: undefined,
    targetName: 'local',
    mode,
    stateDir: join(dir, 'state'),
    fresh: false,
    approvals: new Set(),
    secrets: {},
    env: {},
    registry: await registry.load(registry.names),
    clients: offlineClients(),
    clock: systemClock,
    masker,
    events: new EventBus(masker),
    signal: new AbortController().signal,
    command: 'test',
    actor: 'unit@test',
  });
  return { trace, status: result.status };
}

describe('the step session the engine owns', () => {
  it('is opened once, seen by every call of the step, and closed when the step finishes', async () => {
    const { trace, status } = await run('run', false);
    expect(status).toBe('succeeded');
    expect(trace.opened).toBe(1);
    expect(trace.closed).toBe(1);
    expect(trace.seen.map(([call]) => call)).toEqual(['items', 'observe', 'apply', 'apply', 'close']);
    expect(new Set(trace.seen.map(([, session]) => session)).size).toBe(1);
  });

  it('is closed after a failure', async () => {
    const { trace, status } = await run('run', true);
    expect(status).toBe('failed');
    expect(trace.opened).toBe(1);
    expect(trace.closed).toBe(1);
    expect(trace.seen.at(-1)).toEqual(['close', { id: 1 }]);
  });

  it('is closed after plan mode, and nothing is applied', async () => {
    const { trace, status } = await run('plan', false);
    expect(status).toBe('planned');
    expect(trace.opened).toBe(1);
    expect(trace.closed).toBe(1);
    expect(trace.seen.map(([call]) => call)).toEqual(['items', 'observe', 'close']);
  });
});

/**
 * The typed event stream of a run. The engine emits; the terminal's view, the plain-line log, the NDJSON stream
 * (`--json`) and the Markdown summary consume. Source of `schemas/events.schema.json`; minor additions keep
 * EVENTS_VERSION's major, a breaking change bumps it.
 */
import type { FromSchema } from 'json-schema-to-ts';

export const EVENTS_VERSION = '1.1';

/**
 * The event fields that are structure — types, enums, ids a consumer matches on (schemas/events.schema.json):
 * never masked, so that a secret which happens to equal `succeeded` cannot break the stream.
 */
export const EVENT_STRUCTURE: ReadonlySet<string> = new Set([
  'type',
  'time',
  'events',
  'ledgerbook',
  'mode',
  'status',
  'level',
  'run',
  'step',
  'item',
  'kind',
  'id',
  'code',
  'rule',
  'action',
  'pointer',
  'inSync',
  'stream',
]);

const time = { type: 'string', description: 'ISO-8601 time the event was emitted' } as const;
const stepId = { type: 'string' } as const;
const diagnostic = {
  type: 'object',
  properties: {
    file: { type: 'string' },
    line: { type: 'integer' },
    col: { type: 'integer' },
    pointer: { type: 'string' },
    message: { type: 'string' },
    expected: { type: 'string' },
    hint: { type: 'string' },
    rule: { type: 'string' },
  },
  required: ['file', 'line', 'col', 'pointer', 'message', 'rule'],
  additionalProperties: false,
} as const;
const errorInfo = {
  type: 'object',
  properties: {
    code: { type: 'string' },
    message: { type: 'string' },
    hint: { type: 'string' },
    seen: { type: 'string', description: 'for ambiguous outcomes: what was observed' },
    diagnostics: {
      type: 'array',
      items: diagnostic,
      description: 'for bad input found while running (a recipients file): every problem with its position',
    },
  },
  required: ['code', 'message'],
  additionalProperties: false,
} as const;
const change = {
  type: 'object',
  properties: {
    item: { type: 'string' },
    action: { type: 'string' },
    summary: { type: 'string' },
    details: { type: 'object' },
  },
  required: ['item', 'action', 'summary'],
  additionalProperties: false,
} as const;

function event<
  const T extends string,
  const P extends Record<string, unknown>,
  const R extends readonly string[],
>(type: T, properties: P, required: R) {
  return {
    type: 'object',
    properties: { type: { const: type }, time, ...properties },
    required: ['type', 'time', ...required],
    additionalProperties: false,
  } as const;
}

const versionEvent = event('version', { events: { const: EVENTS_VERSION }, ledgerbook: { type: 'string' } }, [
  'events',
  'ledgerbook',
]);
const runStart = event(
  'run.start',
  {
    run: { type: 'string' },
    mode: { enum: ['run', 'plan'] },
    playbook: { type: 'string' },
    file: { type: 'string' },
    target: { type: 'string' },
    resumed: { type: 'boolean' },
    steps: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: stepId, kind: { type: 'string' }, name: { type: 'string' } },
        required: ['id', 'kind', 'name'],
        additionalProperties: false,
      },
    },
  },
  ['run', 'mode', 'playbook', 'file', 'target', 'resumed', 'steps'],
);
const stepStart = event(
  'step.start',
  { step: stepId, kind: { type: 'string' }, items: { type: 'integer' } },
  ['step', 'kind', 'items'],
);
const stepPlan = event(
  'step.plan',
  { step: stepId, inSync: { type: 'boolean' }, changes: { type: 'array', items: change } },
  ['step', 'inSync', 'changes'],
);
const itemDone = event(
  'item.done',
  {
    step: stepId,
    item: { type: 'string' },
    status: { enum: ['applied', 'in-sync', 'skipped', 'reconciled', 'failed'] },
    outputs: {
      type: 'object',
      description: "the item's outputs, when it has any (a distribution's receipt of one recipient)",
    },
    error: errorInfo,
  },
  ['step', 'item', 'status'],
);
const stepProgress = event(
  'step.progress',
  {
    step: stepId,
    done: { type: 'integer' },
    total: { type: 'integer' },
    rate: {
      type: 'number',
      description:
        'items finished per second over the last seconds (not counting items an earlier invocation finished)',
    },
    etaMs: { type: 'integer', description: 'the time the remaining items take at that rate' },
    message: { type: 'string' },
  },
  ['step', 'done', 'total'],
);
const retryEvent = event(
  'retry',
  {
    step: stepId,
    item: { type: 'string' },
    attempt: { type: 'integer', description: 'the attempt that failed' },
    delayMs: { type: 'integer' },
    error: errorInfo,
  },
  ['step', 'item', 'attempt', 'delayMs', 'error'],
);
const logEvent = event(
  'log',
  {
    level: { enum: ['debug', 'info', 'warn', 'error'] },
    step: stepId,
    item: { type: 'string', description: 'the item the line is about, when it is one item’s' },
    stream: {
      enum: ['stdout', 'stderr'],
      description:
        'a command’s output (core.shell), as a terminal would have shown it: `message` is the text, all its lines',
    },
    message: { type: 'string' },
  },
  ['level', 'message'],
);
const stepDone = event(
  'step.done',
  {
    step: stepId,
    status: {
      enum: [
        'applied',
        'in-sync',
        'skipped',
        'resumed',
        'planned',
        'failed',
        'paused',
        'ambiguous',
        'interrupted',
      ],
      description:
        '`interrupted`: the run was stopped (Ctrl-C, SIGTERM) before the step finished; a resumed run carries it on',
    },
    changes: { type: 'integer', description: 'changes applied (run) or planned (plan)' },
    outputs: { type: 'object' },
    items: {
      type: 'integer',
      description:
        'plan, a fan-out step known after apply: how many items it will have (when they do not depend on outputs known only after apply)',
    },
    durationMs: { type: 'integer' },
    error: errorInfo,
  },
  ['step', 'status', 'changes', 'durationMs'],
);
const runDone = event(
  'run.done',
  {
    run: { type: 'string' },
    status: { enum: ['succeeded', 'failed', 'paused', 'ambiguous', 'planned', 'interrupted'] },
    exitCode: { type: 'integer' },
    changes: { type: 'integer' },
    durationMs: { type: 'integer' },
    error: errorInfo,
  },
  ['run', 'status', 'exitCode', 'changes', 'durationMs'],
);
const errorEvent = event(
  'error',
  {
    code: { type: 'string' },
    message: { type: 'string' },
    hint: { type: 'string' },
    exitCode: { type: 'integer' },
    diagnostics: { type: 'array', items: diagnostic },
  },
  ['code', 'message', 'exitCode'],
);

/** A run's summary as the journal records it (journal-state.ts RunSummary). */
const runSummary = {
  type: 'object',
  properties: {
    run: { type: 'string' },
    playbook: { type: 'string' },
    target: { type: 'string' },
    status: { enum: ['running', 'succeeded', 'failed', 'paused', 'ambiguous', 'interrupted'] },
    startedAt: { type: 'string' },
    endedAt: { type: 'string' },
    exitCode: { type: 'integer' },
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' } },
      required: ['code', 'message'],
      additionalProperties: false,
    },
    steps: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          step: stepId,
          status: { enum: ['applied', 'in-sync', 'skipped', 'unfinished'] },
          items: { type: 'integer' },
          done: { type: 'integer' },
          pending: {
            type: 'array',
            items: { type: 'string' },
            description: 'items with an intent and no end',
          },
        },
        required: ['step', 'status', 'items', 'done', 'pending'],
        additionalProperties: false,
      },
    },
  },
  required: ['run', 'playbook', 'target', 'status', 'startedAt', 'steps'],
  additionalProperties: false,
} as const;
const lockInfo = {
  type: 'object',
  description: 'who holds the lock of a playbook and target',
  properties: {
    id: { type: 'string' },
    pid: { type: 'integer' },
    host: { type: 'string' },
    user: { type: 'string' },
    at: { type: 'string' },
    command: { type: 'string', description: 'the command line, every password in it masked' },
    playbook: { type: 'string' },
    target: { type: 'string' },
  },
  required: ['id', 'pid', 'host', 'user', 'at', 'command', 'playbook', 'target'],
  additionalProperties: false,
} as const;
/** `ledgerbook status --json`: where each run of the state stands. */
const statusEvent = event(
  'status',
  {
    state: {
      type: 'string',
      description: 'where the state lives (a directory, or a database with its password masked)',
    },
    runs: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          playbook: { type: 'string' },
          target: { type: 'string' },
          status: {
            type: 'string',
            description: 'the last run’s status, refined with its lock (`running (pid …)`)',
          },
          file: { type: 'string', description: 'the playbook file the last run named' },
          last: { ...runSummary, description: 'the last run, absent when none was recorded' },
          lock: lockInfo,
          lockHolder: {
            enum: ['alive', 'gone', 'unknown'],
            description: 'the holder is alive, gone (stale: the next run takes it over), or on another host',
          },
          damagedLock: { type: 'string', description: 'a lock record that is not a ledgerbook lock' },
        },
        required: ['playbook', 'target', 'status'],
        additionalProperties: false,
      },
    },
  },
  ['state', 'runs'],
);

export const eventsSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://ledgerbook.dev/schemas/events.schema.json',
  title: 'ledgerbook --json event',
  description: `One line of \`ledgerbook … --json\` output (NDJSON). The first line is a \`version\` event; events version ${EVENTS_VERSION}.`,
  oneOf: [
    versionEvent,
    runStart,
    stepStart,
    stepPlan,
    itemDone,
    stepProgress,
    retryEvent,
    logEvent,
    stepDone,
    runDone,
    errorEvent,
    statusEvent,
  ],
} as const;

export type LedgerbookEvent = FromSchema<typeof eventsSchema>;
export type EventType = LedgerbookEvent['type'];
export type EventOf<T extends EventType> = Extract<LedgerbookEvent, { type: T }>;
/** An event before the emitter stamps its time. */
export type EventInput = LedgerbookEvent extends infer E
  ? E extends { time: string }
    ? Omit<E, 'time'>
    : never
  : never;

export type EventListener = (event: LedgerbookEvent) => void;

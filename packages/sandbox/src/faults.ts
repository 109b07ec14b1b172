/**
 * Fault injection: one shape (FaultSpec) for the --faults YAML file and the admin API. `FaultBook` holds the
 * active faults and answers the questions the nodes ask ("does node3 decline this invitation?", "is this request
 * answered with a 503?"), consuming counted faults as they fire.
 */
import { readFile } from 'node:fs/promises';
import { LineCounter, isCollection, parseDocument } from 'yaml';
import { type FileProblem, compareProblems, fileProblems } from './errors.js';
import { KINDS, WORKFLOW_KINDS, type WorkflowKind, isWorkflowKind } from './dpm/workflows/kinds.js';

export type FaultSpec =
  /** the node declines matching invitations as they arrive */
  | { kind: 'decline'; node: string; workflow?: WorkflowKind }
  /** the node is cut off from the mesh (its HTTP APIs stay up) */
  | { kind: 'unreachable'; node: string }
  /** the node's participant stores uploaded DARs but never vets them */
  | { kind: 'vet-fails'; node: string }
  /** the node restarts (drops its in-memory state, reloads what it persisted), at once or when a run it coordinates reaches a step */
  | { kind: 'restart'; node: string; at?: { workflow: WorkflowKind; step: string }; downMs?: number }
  /** added latency on every HTTP response of the node (or service) and every mesh message it answers (all when omitted) */
  | { kind: 'latency'; node?: string; service?: ServiceName; ms: number }
  /** the next `count` authenticated requests are answered 401 `token is not active` */
  | { kind: 'expire-tokens'; node?: string; count?: number }
  /** admin-gated routes are answered 403 `missing required role: dpm-admin` */
  | { kind: 'forbid'; node?: string; method?: string; route?: string; count?: number }
  /** matching requests are answered with `status`; `phase: after` lets the request take effect first */
  | {
      kind: 'http-error';
      node?: string;
      service?: ServiceName;
      method?: string;
      route?: string;
      status: number;
      count?: number;
      phase?: 'before' | 'after';
    }
  /** the next matching submissions are refused 409 LOCAL_VERDICT_LOCKED_CONTRACTS, as if another one held the contract */
  | { kind: 'contention'; node?: string; count?: number }
  /** before the next matching submissions, the contracts they name of the parties they act or read as are re-created under new ids */
  | { kind: 'stale-contracts'; node?: string; count?: number }
  /** the next matching submissions commit, and their response is never sent: the connection drops after `ms` */
  | { kind: 'lost-response'; node?: string; count?: number; ms?: number }
  /** the next matching submissions are refused as an overloaded participant (409 PARTICIPANT_BACKPRESSURE) */
  | { kind: 'overload'; node?: string; count?: number }
  /** a service refuses connections (`refuse`, the default) or accepts them and never answers (`hang`) */
  | { kind: 'service-down'; service: ServiceName; mode?: 'refuse' | 'hang' }
  /** the simulated Bitcoin chain mines no blocks: confirmations stall */
  | { kind: 'stall-chain' }
  /** the attestors process burns `ms` later than usual (until cleared when omitted) */
  | { kind: 'late-burns'; ms?: number }
  /** the attestors create withdraw requests with `btcTxId: null` (the legacy shape) */
  | { kind: 'legacy-withdraw-requests' }
  /** the daily-rewards API answers after `ms` (30–120 s at random when omitted) */
  | { kind: 'slow-rewards'; ms?: number }
  /** bitcoin-address reports only `responded` attestors answering */
  | { kind: 'attestors-partial'; responded: number }
  /** the faucet or the rewards API answers `success: false` */
  | { kind: 'service-refuses'; service: 'faucet' | 'rewards'; message?: string; count?: number }
  /** the identity provider answers refresh grants `invalid_grant: Token is not active` */
  | { kind: 'refresh-inactive'; count?: number };

/** the token services, each on its own listener */
export const SERVICES = ['registry', 'gateway', 'rewards', 'faucet', 'bitcoin'] as const;
export type ServiceName = (typeof SERVICES)[number];

export type LedgerFaultKind = 'contention' | 'stale-contracts' | 'lost-response' | 'overload';

export type FaultKind = FaultSpec['kind'];

export interface ActiveFault {
  id: string;
  spec: FaultSpec;
  /** requests still to be affected; undefined = until cleared */
  remaining: number | undefined;
}

export interface FaultProblem {
  /** JSON pointer into the faults list */
  pointer: string;
  message: string;
  hint?: string;
  /** the problem is the key itself (an unknown field), not its value */
  atKey?: boolean;
}

const FIELDS: Record<FaultKind, { required: string[]; optional: string[] }> = {
  decline: { required: ['node'], optional: ['workflow'] },
  unreachable: { required: ['node'], optional: [] },
  'vet-fails': { required: ['node'], optional: [] },
  restart: { required: ['node'], optional: ['at', 'downMs'] },
  latency: { required: ['ms'], optional: ['node', 'service'] },
  'expire-tokens': { required: [], optional: ['node', 'count'] },
  forbid: { required: [], optional: ['node', 'method', 'route', 'count'] },
  'http-error': { required: ['status'], optional: ['node', 'service', 'method', 'route', 'count', 'phase'] },
  contention: { required: [], optional: ['node', 'count'] },
  'stale-contracts': { required: [], optional: ['node', 'count'] },
  'lost-response': { required: [], optional: ['node', 'count', 'ms'] },
  overload: { required: [], optional: ['node', 'count'] },
  'service-down': { required: ['service'], optional: ['mode'] },
  'stall-chain': { required: [], optional: [] },
  'late-burns': { required: [], optional: ['ms'] },
  'legacy-withdraw-requests': { required: [], optional: [] },
  'slow-rewards': { required: [], optional: ['ms'] },
  'attestors-partial': { required: ['responded'], optional: [] },
  'service-refuses': { required: ['service'], optional: ['message', 'count'] },
  'refresh-inactive': { required: [], optional: ['count'] },
};
const KIND_NAMES = Object.keys(FIELDS) as FaultKind[];
const NODE_NAME = /^node[1-9]\d*$/;
const METHODS = ['GET', 'POST', 'PUT', 'DELETE'];

/** Checks a list of faults (or one fault); every problem is reported with its JSON pointer. */
export function validateFaults(value: unknown): { faults: FaultSpec[]; problems: FaultProblem[] } {
  const problems: FaultProblem[] = [];
  if (value === null || value === undefined) return { faults: [], problems };
  const list = Array.isArray(value) ? value : [value];
  const prefix = Array.isArray(value) ? (i: number) => `/${i}` : () => '';
  const faults: FaultSpec[] = [];
  list.forEach((item, index) => {
    const before = problems.length;
    const spec = validateOne(item, prefix(index), problems);
    if (spec !== undefined && problems.length === before) faults.push(spec);
  });
  return { faults, problems };
}

function validateOne(item: unknown, at: string, problems: FaultProblem[]): FaultSpec | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    problems.push({
      pointer: at,
      message: 'a fault must be a mapping with a `kind`',
      hint: example('decline'),
    });
    return undefined;
  }
  const record = item as Record<string, unknown>;
  const kind = record.kind;
  if (typeof kind !== 'string' || !(KIND_NAMES as string[]).includes(kind)) {
    problems.push({
      pointer: `${at}/kind`,
      message: kind === undefined ? 'missing `kind`' : `unknown fault kind ${JSON.stringify(kind)}`,
      hint: `one of: ${KIND_NAMES.join(', ')}`,
    });
    return undefined;
  }
  const fields = FIELDS[kind as FaultKind];
  for (const key of Object.keys(record)) {
    if (key !== 'kind' && !fields.required.includes(key) && !fields.optional.includes(key)) {
      problems.push({
        pointer: `${at}/${key}`,
        message: `unknown field \`${key}\` for a ${kind} fault`,
        hint: `allowed: ${['kind', ...fields.required, ...fields.optional].join(', ')}`,
        atKey: true,
      });
    }
  }
  for (const key of fields.required) {
    if (record[key] === undefined) {
      problems.push({
        pointer: at,
        message: `a ${kind} fault needs \`${key}\``,
        hint: example(kind as FaultKind),
      });
    }
  }
  const check = (key: string, ok: (v: unknown) => boolean, expected: string): void => {
    if (record[key] !== undefined && !ok(record[key])) {
      problems.push({
        pointer: `${at}/${key}`,
        message: `\`${key}\` must be ${expected}`,
        hint: `got ${JSON.stringify(record[key])}`,
      });
    }
  };
  const positiveInt = (v: unknown): boolean => Number.isInteger(v) && (v as number) > 0;
  const nonNegativeInt = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0;
  check('node', (v) => typeof v === 'string' && NODE_NAME.test(v), 'a node name such as node1');
  check('workflow', isWorkflowKind, `one of ${WORKFLOW_KINDS.join(', ')}`);
  check('downMs', nonNegativeInt, 'a whole number of milliseconds ≥ 0');
  check('ms', nonNegativeInt, 'a whole number of milliseconds ≥ 0');
  check('count', positiveInt, 'a whole number ≥ 1 (omit it for "until cleared")');
  check(
    'status',
    (v) => Number.isInteger(v) && (v as number) >= 500 && (v as number) <= 599,
    'an HTTP 5xx status',
  );
  check('method', (v) => typeof v === 'string' && METHODS.includes(v), `one of ${METHODS.join(', ')}`);
  check('route', (v) => typeof v === 'string' && v.startsWith('/'), 'a route template such as /workflows');
  check('phase', (v) => v === 'before' || v === 'after', '`before` (default) or `after`');
  const services: readonly string[] = kind === 'service-refuses' ? ['faucet', 'rewards'] : SERVICES;
  check('service', (v) => typeof v === 'string' && services.includes(v), `one of ${services.join(', ')}`);
  check('mode', (v) => v === 'refuse' || v === 'hang', '`refuse` (default) or `hang`');
  check('message', (v) => typeof v === 'string' && v !== '', 'a text');
  check('responded', nonNegativeInt, 'a whole number ≥ 0');
  if (record.node !== undefined && record.service !== undefined) {
    problems.push({
      pointer: `${at}/service`,
      message: 'name a `node` or a `service`, not both',
      atKey: true,
    });
  }
  if (record.at !== undefined) {
    const atValue = record.at as Record<string, unknown>;
    if (typeof atValue !== 'object' || atValue === null || Array.isArray(atValue)) {
      problems.push({ pointer: `${at}/at`, message: '`at` must be a mapping { workflow, step }' });
    } else if (!isWorkflowKind(atValue.workflow)) {
      problems.push({
        pointer: `${at}/at/workflow`,
        message: '`at.workflow` must name a workflow kind',
        hint: `one of ${WORKFLOW_KINDS.join(', ')}`,
      });
    } else {
      const steps = KINDS[atValue.workflow].steps.map((s) => s.name);
      if (typeof atValue.step !== 'string' || !steps.includes(atValue.step)) {
        problems.push({
          pointer: `${at}/at/step`,
          message: `\`at.step\` must be a step of ${atValue.workflow}`,
          hint: `one of ${steps.join(', ')}`,
        });
      }
      for (const key of Object.keys(atValue)) {
        if (key !== 'workflow' && key !== 'step') {
          problems.push({
            pointer: `${at}/at/${key}`,
            message: `unknown field \`${key}\` in \`at\``,
            atKey: true,
          });
        }
      }
    }
  }
  return record as unknown as FaultSpec;
}

function example(kind: FaultKind): string {
  const examples: Record<FaultKind, string> = {
    decline: '{ kind: decline, node: node3, workflow: Onboarding }',
    unreachable: '{ kind: unreachable, node: node3 }',
    'vet-fails': '{ kind: vet-fails, node: node3 }',
    restart: '{ kind: restart, node: node1, at: { workflow: Onboarding, step: SignDns }, downMs: 500 }',
    latency: '{ kind: latency, node: node2, ms: 200 }',
    'expire-tokens': '{ kind: expire-tokens, node: node1, count: 1 }',
    forbid: '{ kind: forbid, node: node1, method: POST, route: /network-config, count: 1 }',
    'http-error': '{ kind: http-error, node: node1, method: GET, route: /workflows, status: 503, count: 1 }',
    contention: '{ kind: contention, node: node1, count: 1 }',
    'stale-contracts': '{ kind: stale-contracts, node: node1, count: 1 }',
    'lost-response': '{ kind: lost-response, node: node1, count: 1, ms: 2000 }',
    overload: '{ kind: overload, count: 3 }',
    'service-down': '{ kind: service-down, service: registry, mode: hang }',
    'stall-chain': '{ kind: stall-chain }',
    'late-burns': '{ kind: late-burns, ms: 60000 }',
    'legacy-withdraw-requests': '{ kind: legacy-withdraw-requests }',
    'slow-rewards': '{ kind: slow-rewards, ms: 45000 }',
    'attestors-partial': '{ kind: attestors-partial, responded: 2 }',
    'service-refuses': '{ kind: service-refuses, service: faucet, message: "faucet is empty" }',
    'refresh-inactive': '{ kind: refresh-inactive, count: 1 }',
  };
  return `for example ${examples[kind]}`;
}

/** Reads a faults YAML file (a list of FaultSpec); problems are reported with file:line:col. */
export async function loadFaultsFile(file: string): Promise<FaultSpec[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw fileProblems([
      {
        file,
        line: 1,
        col: 1,
        pointer: '',
        message: `cannot read the faults file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
        rule: 'file',
      },
    ]);
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true });
  const diagnostics: FileProblem[] = [];
  for (const error of doc.errors) {
    const pos = lineCounter.linePos(error.pos[0]);
    diagnostics.push({
      file,
      line: pos.line,
      col: pos.col,
      pointer: '',
      message: error.message.split('\n')[0] ?? 'YAML error',
      rule: 'yaml',
    });
  }
  if (diagnostics.length > 0) throw fileProblems(diagnostics);
  const value: unknown = doc.toJS();
  if (value !== null && value !== undefined && !Array.isArray(value)) {
    throw fileProblems([
      {
        file,
        line: 1,
        col: 1,
        pointer: '',
        message: 'a faults file is a list of faults',
        hint: `for example:\n- ${example('decline')}`,
        rule: 'faults',
      },
    ]);
  }
  const { faults, problems } = validateFaults(value ?? []);
  if (problems.length > 0) {
    const at = (p: FaultProblem): FileProblem => {
      const pos = lineCounter.linePos(offsetOf(doc, p));
      return {
        file,
        line: pos.line,
        col: pos.col,
        pointer: p.pointer,
        message: p.message,
        hint: p.hint,
        rule: 'faults',
      };
    };
    throw fileProblems(problems.map(at).sort(compareProblems));
  }
  return faults;
}

type Ranged = { range?: [number, number, number] | null } | undefined;

/** where a problem starts in the YAML text: the key of an unknown field, else the value, else its nearest ancestor */
function offsetOf(doc: ReturnType<typeof parseDocument>, problem: FaultProblem): number {
  const path = problem.pointer
    .split('/')
    .slice(1)
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  if (problem.atKey === true) {
    const key = findKey(doc.getIn(path.slice(0, -1), true), path.at(-1));
    if (key?.range) return key.range[0];
  }
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(path.slice(0, n), true) as Ranged;
    if (node?.range) return node.range[0];
  }
  return 0;
}

function findKey(collection: unknown, key: string | number | undefined): Ranged {
  if (!isCollection(collection)) return undefined;
  const items = (
    collection as { items?: Array<{ key?: { value?: unknown; range?: [number, number, number] } }> }
  ).items;
  return items?.find((pair) => pair.key?.value === key)?.key;
}

/** The active faults of a running sandbox. */
export class FaultBook {
  private readonly active: ActiveFault[] = [];
  private next = 1;
  private readonly listeners: Array<(fault: ActiveFault) => void> = [];
  private readonly removeListeners: Array<(fault: ActiveFault) => void> = [];

  constructor(initial: readonly FaultSpec[] = []) {
    for (const spec of initial) this.add(spec);
  }

  /** called for each fault added (the host performs an immediate restart) */
  onAdd(listener: (fault: ActiveFault) => void): void {
    this.listeners.push(listener);
  }

  add(spec: FaultSpec): ActiveFault {
    const count = 'count' in spec ? spec.count : undefined;
    const fault: ActiveFault = { id: `f${this.next++}`, spec, remaining: count };
    this.active.push(fault);
    for (const listener of this.listeners) listener(fault);
    return fault;
  }

  list(): ActiveFault[] {
    return [...this.active];
  }

  remove(id: string): boolean {
    const index = this.active.findIndex((f) => f.id === id);
    if (index < 0) return false;
    const [removed] = this.active.splice(index, 1);
    for (const listener of this.removeListeners) listener(removed as ActiveFault);
    return true;
  }

  clear(): void {
    for (const fault of [...this.active]) this.remove(fault.id);
  }

  declines(node: string, kind: WorkflowKind): boolean {
    return (
      this.find(
        (s) => s.kind === 'decline' && s.node === node && (s.workflow === undefined || s.workflow === kind),
      ) !== undefined
    );
  }

  isCutOff(node: string): boolean {
    return this.find((s) => s.kind === 'unreachable' && s.node === node) !== undefined;
  }

  vetFails(node: string): boolean {
    return this.find((s) => s.kind === 'vet-fails' && s.node === node) !== undefined;
  }

  latencyMs(node: string): number {
    return this.active
      .map((f) => f.spec)
      .filter((s): s is Extract<FaultSpec, { kind: 'latency' }> => s.kind === 'latency' && targets(s, node))
      .reduce((sum, s) => sum + s.ms, 0);
  }

  /** true when this authenticated request must be answered `token is not active` (consumes one) */
  takeExpiredToken(node: string): boolean {
    return this.consume((s) => s.kind === 'expire-tokens' && (s.node === undefined || s.node === node));
  }

  /** true when this admin-gated request must lose its admin role (consumes one) */
  takeForbid(node: string, method: string, route: string): boolean {
    return this.consume(
      (s) =>
        s.kind === 'forbid' &&
        (s.node === undefined || s.node === node) &&
        (s.method === undefined || s.method === method) &&
        (s.route === undefined || s.route === route),
    );
  }

  /** the status to answer this request with, if an http-error fault matches (consumes one) */
  takeHttpError(node: string, method: string, route: string, phase: 'before' | 'after'): number | undefined {
    const fault = this.findFault(
      (s) =>
        s.kind === 'http-error' &&
        targets(s, node) &&
        (s.method === undefined || s.method === method) &&
        (s.route === undefined || s.route === route) &&
        (s.phase ?? 'before') === phase,
    );
    if (fault === undefined || fault.spec.kind !== 'http-error') return undefined;
    this.spend(fault);
    return fault.spec.status;
  }

  /** a restart fault for a run this node coordinates reaching `step` (one-shot: removed when taken) */
  takeRestartAt(node: string, kind: WorkflowKind, step: string): { downMs: number } | undefined {
    const fault = this.findFault(
      (s) =>
        s.kind === 'restart' &&
        s.node === node &&
        s.at !== undefined &&
        s.at.workflow === kind &&
        s.at.step === step,
    );
    if (fault === undefined || fault.spec.kind !== 'restart') return undefined;
    this.remove(fault.id);
    return { downMs: fault.spec.downMs ?? DEFAULT_DOWN_MS };
  }

  /** a ledger fault for a submission to this node's ledger API (consumes one) */
  takeLedgerFault(node: string, kind: LedgerFaultKind): FaultSpec | undefined {
    const fault = this.findFault(
      (s) => s.kind === kind && (!('node' in s) || s.node === undefined || s.node === node),
    );
    if (fault === undefined) return undefined;
    this.spend(fault);
    return fault.spec;
  }

  /** the first active fault of a kind (consumes one when `consume`) */
  take<K extends FaultKind>(kind: K, consume = false): Extract<FaultSpec, { kind: K }> | undefined {
    const fault = this.findFault((s) => s.kind === kind);
    if (fault === undefined) return undefined;
    if (consume) this.spend(fault);
    return fault.spec as Extract<FaultSpec, { kind: K }>;
  }

  /** the message of a service-refuses fault for this service, if one is active (consumes one) */
  takeRefusal(service: 'faucet' | 'rewards'): string | undefined {
    const fault = this.findFault((s) => s.kind === 'service-refuses' && s.service === service);
    if (fault === undefined || fault.spec.kind !== 'service-refuses') return undefined;
    this.spend(fault);
    return fault.spec.message ?? `injected fault: the ${service} service refused the request`;
  }

  /** called for each fault removed (a service brought down comes back up) */
  onRemove(listener: (fault: ActiveFault) => void): void {
    this.removeListeners.push(listener);
  }

  private find(predicate: (spec: FaultSpec) => boolean): FaultSpec | undefined {
    return this.findFault(predicate)?.spec;
  }

  private findFault(predicate: (spec: FaultSpec) => boolean): ActiveFault | undefined {
    return this.active.find((f) => predicate(f.spec));
  }

  private consume(predicate: (spec: FaultSpec) => boolean): boolean {
    const fault = this.findFault(predicate);
    if (fault === undefined) return false;
    this.spend(fault);
    return true;
  }

  private spend(fault: ActiveFault): void {
    if (fault.remaining === undefined) return;
    fault.remaining--;
    if (fault.remaining <= 0) this.remove(fault.id);
  }
}

export const DEFAULT_DOWN_MS = 500;

/** a fault without `node` and `service` applies to every listener */
function targets(spec: { node?: string; service?: string }, listener: string): boolean {
  const target = spec.node ?? spec.service;
  return target === undefined || target === listener;
}

/**
 * The sandbox's admin API (no auth, loopback only): request counts, faults, node restarts, a state dump, and the
 * identity provider's access-token lifetime. Documented in README.md next to this file.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ActiveFault, type FaultBook, validateFaults } from './faults.js';
import { type RequestLog, write } from './http/listener.js';
import { type Reply, empty, json, jsonError } from './http/reply.js';
import type { CapacitySettings } from './capacity.js';
import type { TokenSide } from './token-side.js';

export interface AdminHost {
  requests: RequestLog;
  faults: FaultBook;
  nodeNames(): string[];
  restartNode(name: string, downMs: number): void;
  state(): unknown;
  setAccessTokenTtl(seconds: number): void;
  /** the token side, once started */
  token(): TokenSide | undefined;
}

const ROUTES = [
  'GET /requests',
  'DELETE /requests',
  'GET /callers',
  'GET /faults',
  'POST /faults',
  'DELETE /faults',
  'DELETE /faults/{id}',
  'POST /nodes/{name}/restart',
  'GET /state',
  'PUT /idp/access-token-ttl',
  'GET /capacity',
  'PUT /capacity',
  'POST /parties',
  'GET /world',
];

export function adminHandler(host: AdminHost): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () =>
      write(
        res,
        route(
          host,
          req.method ?? 'GET',
          new URL(req.url ?? '/', 'http://admin').pathname,
          Buffer.concat(chunks),
        ),
      ),
    );
  };
}

function route(host: AdminHost, method: string, path: string, raw: Buffer): Reply {
  const body = (): { ok: true; value: unknown } | { ok: false; reply: Reply } => {
    if (raw.length === 0) return { ok: true, value: undefined };
    try {
      return { ok: true, value: JSON.parse(raw.toString('utf8')) as unknown };
    } catch (error) {
      return { ok: false, reply: jsonError(400, `the body is not JSON: ${(error as Error).message}`) };
    }
  };
  const segments = path.split('/').slice(1);
  if (method === 'GET' && path === '/requests') return json(200, { requests: host.requests.list() });
  if (method === 'GET' && path === '/callers') return json(200, { callers: host.requests.listCallers() });
  if (method === 'DELETE' && path === '/requests') {
    host.requests.reset();
    return empty(204);
  }
  if (path === '/faults') {
    if (method === 'GET') return json(200, { faults: host.faults.list().map(describe) });
    if (method === 'DELETE') {
      host.faults.clear();
      return empty(204);
    }
    if (method === 'POST') {
      const parsed = body();
      if (!parsed.ok) return parsed.reply;
      const { faults, problems } = validateFaults(parsed.value);
      const unknownNodes = faults
        .map((f) => ('node' in f ? f.node : undefined))
        .filter((n): n is string => n !== undefined && !host.nodeNames().includes(n));
      if (problems.length > 0 || unknownNodes.length > 0 || faults.length === 0) {
        return json(400, {
          error: 'invalid fault',
          problems: [
            ...problems,
            ...unknownNodes.map((n) => ({
              pointer: '',
              message: `unknown node ${n}`,
              hint: `nodes: ${host.nodeNames().join(', ')}`,
            })),
            ...(faults.length === 0 && problems.length === 0
              ? [{ pointer: '', message: 'no fault given' }]
              : []),
          ],
        });
      }
      return json(201, { faults: faults.map((f) => describe(host.faults.add(f))) });
    }
  }
  if (method === 'DELETE' && segments[0] === 'faults' && segments.length === 2) {
    return host.faults.remove(segments[1] ?? '') ? empty(204) : jsonError(404, `no fault ${segments[1]}`);
  }
  if (method === 'POST' && segments[0] === 'nodes' && segments[2] === 'restart' && segments.length === 3) {
    const name = segments[1] ?? '';
    if (!host.nodeNames().includes(name))
      return jsonError(404, `no node ${name}; nodes: ${host.nodeNames().join(', ')}`);
    const parsed = body();
    if (!parsed.ok) return parsed.reply;
    const downMs = (parsed.value as { downMs?: unknown } | undefined)?.downMs ?? 500;
    if (!Number.isInteger(downMs) || (downMs as number) < 0)
      return jsonError(400, '`downMs` must be a whole number ≥ 0');
    host.restartNode(name, downMs as number);
    return json(202, { node: name, downMs });
  }
  if (method === 'GET' && path === '/state') return json(200, host.state());
  if (method === 'PUT' && path === '/idp/access-token-ttl') {
    const parsed = body();
    if (!parsed.ok) return parsed.reply;
    const seconds = (parsed.value as { seconds?: unknown } | undefined)?.seconds;
    if (!Number.isInteger(seconds) || (seconds as number) < 1)
      return jsonError(400, '`seconds` must be a whole number ≥ 1');
    host.setAccessTokenTtl(seconds as number);
    return json(200, { seconds });
  }
  const token = host.token();
  if (token !== undefined) {
    if (path === '/capacity' && method === 'GET') return json(200, capacityJson(token));
    if (path === '/capacity' && method === 'PUT') {
      const parsed = body();
      if (!parsed.ok) return parsed.reply;
      return updateCapacity(token, parsed.value);
    }
    if (path === '/parties' && method === 'POST') {
      const parsed = body();
      if (!parsed.ok) return parsed.reply;
      return allocateParties(token, parsed.value);
    }
    if (path === '/world' && method === 'GET') return json(200, worldJson(token));
  }
  return jsonError(404, `no admin route ${method} ${path}; routes: ${ROUTES.join(', ')}`);
}

function capacityJson(token: TokenSide): Record<string, unknown> {
  const c = token.capacity.current;
  return { latencyMs: c.latencyMs, limit: c.limit, windowSeconds: c.windowMs / 1000 };
}

/** `{"latencyMs": 2000, "limit": 500, "windowSeconds": 600}` (any of them; `limit: null` = unlimited) */
function updateCapacity(token: TokenSide, value: unknown): Reply {
  const v = (value ?? {}) as { latencyMs?: unknown; limit?: unknown; windowSeconds?: unknown };
  if (typeof v !== 'object' || Array.isArray(v))
    return jsonError(400, 'the body must be an object {latencyMs?, limit?, windowSeconds?}');
  const problems: string[] = [];
  const update: Partial<CapacitySettings> = {};
  if (v.latencyMs !== undefined) {
    if (Number.isInteger(v.latencyMs) && (v.latencyMs as number) >= 0)
      update.latencyMs = v.latencyMs as number;
    else problems.push('`latencyMs` must be a whole number ≥ 0');
  }
  if (v.limit !== undefined) {
    if (v.limit === null || (Number.isInteger(v.limit) && (v.limit as number) >= 1))
      update.limit = v.limit as number | null;
    else problems.push('`limit` must be a whole number ≥ 1, or null for no limit');
  }
  if (v.windowSeconds !== undefined) {
    if (typeof v.windowSeconds === 'number' && v.windowSeconds > 0)
      update.windowMs = Math.round(v.windowSeconds * 1000);
    else problems.push('`windowSeconds` must be a number > 0');
  }
  if (problems.length > 0) return jsonError(400, problems.join('; '));
  token.capacity.update(update);
  return json(200, capacityJson(token));
}

/**
 * `{"node": "node2", "count": 1000, "prefix": "bench"}`: allocates `bench-0001`… on that node's participant and
 * lets the node's operator and CI users act as them (benchmarks and tests that need many receivers).
 */
function allocateParties(token: TokenSide, value: unknown): Reply {
  const v = (value ?? {}) as { node?: unknown; count?: unknown; prefix?: unknown };
  const node = token.nodes.find((n) => n.name === v.node);
  if (node === undefined)
    return jsonError(400, `\`node\` must name a node: ${token.nodes.map((n) => n.name).join(', ')}`);
  if (!Number.isInteger(v.count) || (v.count as number) < 1 || (v.count as number) > 100_000) {
    return jsonError(400, '`count` must be a whole number from 1 to 100000');
  }
  if (typeof v.prefix !== 'string' || !/^[a-z][a-z0-9-]{0,40}$/.test(v.prefix)) {
    return jsonError(
      400,
      '`prefix` must be lower-case letters, digits or -, starting with a letter (at most 41)',
    );
  }
  const count = v.count as number;
  const width = Math.max(4, String(count).length);
  const namespace = node.participantId.slice(node.participantId.indexOf('::') + 2);
  const parties = Array.from(
    { length: count },
    (_, i) => `${v.prefix as string}-${String(i + 1).padStart(width, '0')}::${namespace}`,
  );
  const ledger = token.ledger;
  for (const party of parties) {
    if (ledger.hosting(party)[node.participantId] === undefined)
      ledger.allocateParty(party, node.participantId, 'submission');
  }
  for (const userId of [
    node.operatorUser,
    node.ciUser,
    ...(node.adminUser === undefined ? [] : [node.adminUser]),
  ]) {
    const user = ledger.user(node.participantId, userId);
    if (user === undefined) continue;
    const missing = parties.filter((p) => !user.rights.some((r) => r.kind === 'CanActAs' && r.party === p));
    if (missing.length > 0) {
      ledger.putUser(node.participantId, {
        ...user,
        rights: [...user.rights, ...missing.map((party) => ({ kind: 'CanActAs' as const, party }))],
      });
    }
  }
  return json(201, { node: node.name, parties });
}

function worldJson(token: TokenSide): Record<string, unknown> {
  const w = token.world;
  const on = (party: string) => ({ party, node: w.hostOf.get(party) });
  return {
    instrument: w.instrument,
    otherInstrument: w.otherInstrument,
    admin: on(w.admin),
    operator: on(w.operator),
    dso: on(w.dso),
    otherAdmin: on(w.otherAdmin),
    faucet: on(w.faucet),
    minter: on(w.minter),
    preapproved: on(w.preapproved),
    operators: w.operators.map(on),
    holders: w.holders.map(on),
    ledgerEnd: token.ledger.end,
    activeContracts: token.ledger.activeCount(),
  };
}

function describe(fault: ActiveFault): Record<string, unknown> {
  return {
    id: fault.id,
    ...fault.spec,
    ...(fault.remaining !== undefined ? { remaining: fault.remaining } : {}),
  };
}

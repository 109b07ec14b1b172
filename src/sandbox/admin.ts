/**
 * The sandbox's admin API (no auth, loopback only): request counts, faults, node restarts, a state dump, and the
 * identity provider's access-token lifetime. Documented in README.md next to this file.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ActiveFault, type FaultBook, validateFaults } from './faults.js';
import { type RequestLog, write } from './http/listener.js';
import { type Reply, empty, json, jsonError } from './http/reply.js';

export interface AdminHost {
  requests: RequestLog;
  faults: FaultBook;
  nodeNames(): string[];
  restartNode(name: string, downMs: number): void;
  state(): unknown;
  setAccessTokenTtl(seconds: number): void;
}

const ROUTES = [
  'GET /requests',
  'DELETE /requests',
  'GET /faults',
  'POST /faults',
  'DELETE /faults',
  'DELETE /faults/{id}',
  'POST /nodes/{name}/restart',
  'GET /state',
  'PUT /idp/access-token-ttl',
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
  return jsonError(404, `no admin route ${method} ${path}; routes: ${ROUTES.join(', ')}`);
}

function describe(fault: ActiveFault): Record<string, unknown> {
  return {
    id: fault.id,
    ...fault.spec,
    ...(fault.remaining !== undefined ? { remaining: fault.remaining } : {}),
  };
}

/**
 * The sandbox's HTTP listeners on loopback. A node's listener counts every request by route template (admin
 * `GET /requests`), applies the node's HTTP faults (5xx, latency) and writes the handler's Reply. A listener can
 * be closed and opened again on the same port (a node restart refuses connections while it is down).
 */
import {
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  createServer,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { usageError } from '../errors.js';
import type { FaultBook } from '../faults.js';
import { sleep } from '../time.js';
import { type Reply, text } from './reply.js';

export interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** what the admin API reports: requests per node, method and route template */
export class RequestLog {
  private readonly counts = new Map<string, { node: string; method: string; route: string; count: number }>();

  record(node: string, method: string, route: string): void {
    const key = `${node} ${method} ${route}`;
    const entry = this.counts.get(key);
    if (entry === undefined) this.counts.set(key, { node, method, route, count: 1 });
    else entry.count++;
  }

  list(): Array<{ node: string; method: string; route: string; count: number }> {
    return [...this.counts.values()].sort(
      (a, b) =>
        a.node.localeCompare(b.node) || a.route.localeCompare(b.route) || a.method.localeCompare(b.method),
    );
  }

  reset(): void {
    this.counts.clear();
    this.callers.clear();
  }

  private readonly callers = new Map<string, Caller>();

  /**
   * A request of `who` (a verified token's user, or a client's service account) authenticated by a node's DPM or
   * ledger, or a token the node's DPM got with credentials saved for a party (`party`)
   */
  recordCaller(node: string, api: CallerApi, who: string): void {
    const key = `${node} ${api} ${who}`;
    const entry = this.callers.get(key);
    if (entry === undefined) this.callers.set(key, { node, api, who, count: 1 });
    else entry.count++;
  }

  listCallers(): Caller[] {
    return [...this.callers.values()].sort(
      (a, b) => a.node.localeCompare(b.node) || a.api.localeCompare(b.api) || a.who.localeCompare(b.who),
    );
  }
}

/** `dpm`, `ledger`: requests to the node's APIs; `party`: the node's DPM acting with a party's saved credentials */
export type CallerApi = 'dpm' | 'ledger' | 'party';

/** whose credentials were used on a node, and how often */
export interface Caller {
  node: string;
  api: CallerApi;
  /** the IdP user name (`operator2`, `viewer`) or the service account (`service-account-node2-admin`) */
  who: string;
  count: number;
}

export interface NodeFrontDoor {
  /** `node1`, or `node1` for its ledger: the name faults and counts use */
  node: string;
  faults: FaultBook;
  log: RequestLog;
  /** the route template of a path, or undefined when no route matches */
  templateOf(method: string, path: string): string | undefined;
  dispatch(call: Call): Promise<Reply>;
  /**
   * the service's own error body for a status: what an injected http-error fault and a failure the sandbox did
   * not expect answer, so that they look like the service's own (its JSON envelope, the ledger's JsCantonError)
   */
  failure(status: number, message: string): Reply;
  /** requests larger than this are refused before they are read whole */
  maxBodyBytes: number;
  onError(error: unknown): void;
  /** true while the service accepts connections and never answers (the service-down fault, mode hang) */
  hangs?(): boolean;
}

/** the request handler of a node's listener */
export function nodeHandler(door: NodeFrontDoor): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(door, req)
      .then((reply) => write(res, reply))
      .catch((error: unknown) => {
        door.onError(error);
        write(res, door.failure(500, `internal sandbox error: ${(error as Error).message}`));
      });
  };
}

async function handle(door: NodeFrontDoor, req: IncomingMessage): Promise<Reply> {
  const url = new URL(req.url ?? '/', 'http://sandbox');
  const method = req.method ?? 'GET';
  const path = url.pathname;
  const route = door.templateOf(method, path) ?? path;
  door.log.record(door.node, method, route);
  const body = await readBody(req, door.maxBodyBytes);
  if (door.hangs?.() === true) return { status: 0, drop: { afterMs: 10 * 60_000 } };
  let reply: Reply;
  const before = door.faults.takeHttpError(door.node, method, route, 'before');
  if (body === undefined) {
    reply = text(
      413,
      `JSON payload (${req.headers['content-length'] ?? '?'} bytes) is larger than allowed (limit: ${door.maxBodyBytes} bytes).`,
    );
  } else if (before !== undefined) {
    reply = door.failure(before, injectedMessage(before));
  } else {
    reply = await door.dispatch({ method, path, query: url.searchParams, headers: req.headers, body });
    const after = door.faults.takeHttpError(door.node, method, route, 'after');
    if (after !== undefined) reply = door.failure(after, injectedMessage(after));
  }
  const latency = door.faults.latencyMs(door.node);
  if (latency > 0) await sleep(latency);
  return reply;
}

/** the message of an injected http-error fault's answer */
export function injectedMessage(status: number): string {
  return `injected fault: the sandbox answered ${status} on purpose`;
}

/** the whole body, or undefined when it is larger than `limit` (read to its end either way) */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number(req.headers['content-length'] ?? 0) > limit;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function write(res: ServerResponse, reply: Reply): void {
  if (res.headersSent) return;
  if (reply.drop !== undefined) {
    setTimeout(() => res.socket?.destroy(), reply.drop.afterMs).unref();
    return;
  }
  const body = reply.body ?? '';
  res.writeHead(reply.status, { ...reply.headers, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** how long an idle connection stays open (Keep-Alive: timeout=60) */
const KEEP_ALIVE_MS = 60_000;

/** A listener that can be closed and reopened on the same port. */
export class Listener {
  private server: Server | undefined;
  private boundPort = 0;

  constructor(
    private readonly host: string,
    private readonly handler: (req: IncomingMessage, res: ServerResponse) => void,
    /** WebSocket upgrades (the ledger API's streams) */
    private readonly upgrade?: (req: IncomingMessage, socket: Duplex, head: Buffer) => void,
  ) {}

  get isOpen(): boolean {
    return this.server !== undefined;
  }

  get port(): number {
    return this.boundPort;
  }

  get url(): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `http://${host}:${this.boundPort}`;
  }

  async open(port = this.boundPort): Promise<void> {
    const server = createServer(this.handler);
    // Idle connections stay open as a real participant's or node's do (an HTTP server's idle timeout is tens of
    // seconds), so a client reuses them instead of connecting for every request; close() ends them at once.
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    if (this.upgrade !== undefined) server.on('upgrade', this.upgrade);
    await new Promise<void>((resolve, reject) => {
      const refuse = (error: NodeJS.ErrnoException): void => {
        reject(
          error.code === 'EADDRINUSE' || error.code === 'EACCES'
            ? usageError(
                `cannot listen on ${this.host}:${port}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : 'permission denied'}`,
                'choose another --port (the sandbox needs a block of consecutive ports from it), or --port 0 for free ports',
              )
            : error,
        );
      };
      server.once('error', refuse);
      server.listen(port, this.host, () => {
        server.off('error', refuse);
        resolve();
      });
    });
    this.boundPort = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
}

/**
 * A real HTTP and WebSocket server on a loopback port (port 0) for the clients' tests: it records every request
 * (method, path, query, headers, parsed body) and answers with what the test scripted per route. WebSocket routes
 * receive the one request frame and send the scripted frames, then close. Nothing here is a mock of a client: the
 * clients speak real HTTP and WebSocket to it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface Recorded {
  method: string;
  /** path and query as sent (still percent-encoded) */
  url: string;
  /** the path, still percent-encoded */
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  /** the body parsed as JSON, or undefined when there was none */
  body: unknown;
  text: string;
}

export interface Reply {
  status?: number;
  /** JSON-encoded */
  body?: unknown;
  /** sent as is with `contentType` (default text/plain) */
  text?: string;
  contentType?: string;
  /** answer after this many ms */
  delayMs?: number;
  /** never answer (a hung service) */
  hang?: boolean;
  /** read the request, then drop the connection without an answer (a lost response) */
  drop?: boolean;
}

export type Handler = (request: Recorded) => Reply | Promise<Reply>;

export interface WsRecorded {
  path: string;
  protocols: string[];
  /** the request frame, parsed */
  request: unknown;
}

export interface WsScript {
  /** refuse the upgrade with this HTTP status */
  refuse?: number;
  /** frames to send after the request frame: objects are JSON-encoded, strings sent as text, Buffers as binary */
  frames?: ReadonlyArray<unknown>;
  /** close code after the frames (default 1000); `'drop'` ends the TCP connection instead */
  close?: number | 'drop';
  closeReason?: string;
  /** send nothing and never close */
  hang?: boolean;
}

interface Route {
  method: string;
  path: string | RegExp;
  handler: Handler;
}

export class FakeService {
  readonly requests: Recorded[] = [];
  readonly wsRequests: WsRecorded[] = [];
  private routes: Route[] = [];
  private wsRoutes = new Map<string, (request: WsRecorded) => WsScript>();
  private readonly sockets = new Set<Socket>();
  private readonly wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) => (protocols.has('daml.ws.auth') ? 'daml.ws.auth' : false),
  });

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeService> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const service = new FakeService(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('connection', (socket) => {
      service.sockets.add(socket);
      socket.on('close', () => service.sockets.delete(socket));
    });
    server.on('request', (req, res) => service.onRequest(req, res));
    server.on('upgrade', (req, socket, head) => service.onUpgrade(req, socket as Socket, head));
    return service;
  }

  /** Answers `method path` (an exact path without the query, or a pattern) with a reply or a handler. */
  on(method: string, path: string | RegExp, reply: Reply | Handler): this {
    const handler = typeof reply === 'function' ? reply : () => reply;
    this.routes = [{ method, path, handler }, ...this.routes];
    return this;
  }

  /** Answers WebSocket upgrades on `path` with a script. */
  onWebSocket(path: string, script: WsScript | ((request: WsRecorded) => WsScript)): this {
    this.wsRoutes.set(path, typeof script === 'function' ? script : () => script);
    return this;
  }

  reset(): void {
    this.requests.length = 0;
    this.wsRequests.length = 0;
    this.routes = [];
    this.wsRoutes.clear();
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const url = new URL(req.url ?? '/', 'http://fake');
      const recorded: Recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body: text === '' ? undefined : (JSON.parse(text) as unknown),
        text,
      };
      this.requests.push(recorded);
      const route = this.routes.find(
        (r) =>
          r.method === recorded.method &&
          (typeof r.path === 'string' ? r.path === recorded.path : r.path.test(recorded.path)),
      );
      const reply: Promise<Reply> = route
        ? Promise.resolve(route.handler(recorded))
        : Promise.resolve({ status: 404, body: { error: `no route ${recorded.method} ${recorded.path}` } });
      void reply.then((r) => this.answer(req, res, r));
    });
  }

  private answer(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
    if (reply.hang) return;
    if (reply.drop) {
      req.socket.destroy();
      return;
    }
    const send = () => {
      const status = reply.status ?? 200;
      if (reply.text !== undefined) {
        res.writeHead(status, { 'content-type': reply.contentType ?? 'text/plain; charset=utf-8' });
        res.end(reply.text);
      } else {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
      }
    };
    if (reply.delayMs) setTimeout(send, reply.delayMs);
    else send();
  }

  private onUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const protocols = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    const scriptOf = this.wsRoutes.get(path);
    const probe: WsRecorded = { path, protocols, request: undefined };
    const refuse = scriptOf === undefined ? 404 : scriptOf(probe).refuse;
    if (refuse !== undefined) {
      socket.end(`HTTP/1.1 ${refuse} Refused\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
      ws.once('message', (data: Buffer) => {
        const recorded: WsRecorded = {
          path,
          protocols,
          request: JSON.parse(data.toString('utf8')) as unknown,
        };
        this.wsRequests.push(recorded);
        const script = scriptOf?.(recorded) ?? {};
        if (script.hang) return;
        for (const frame of script.frames ?? []) {
          if (Buffer.isBuffer(frame)) ws.send(frame, { binary: true });
          else ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
        }
        if (script.close === 'drop') ws.terminate();
        else ws.close(script.close ?? 1000, script.closeReason);
      });
    });
  }
}

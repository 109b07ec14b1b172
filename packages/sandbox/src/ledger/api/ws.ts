/**
 * The JSON Ledger API's WebSocket channels (the AsyncAPI documents): `/v2/state/active-contracts` (one frame
 * per contract, then Close), `/v2/updates`, `/v2/updates/flats` and `/v2/commands/completions` (what exists, then
 * every new update as it commits, until `endInclusive` — at most the ledger end — or the client closes). The token
 * travels in the subprotocol header `jwt.token.<JWT>, daml.ws.auth`, and the server answers `daml.ws.auth`. The
 * client sends one request frame; a failure is one error frame (a JsCantonError) followed by Close.
 */
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { type RequestLog, injectedMessage } from '../../http/listener.js';
import { completion, isTx } from '../encode.js';
import type { OffsetEntry } from '../entries.js';
import { errorOfStatus, errors, LedgerError } from '../errors.js';
import { BodyError, Reader } from './body.js';
import { authenticate, type Caller, type LedgerNodeEnv } from './context.js';
import { completes, readCompletionsRequest } from './commands.js';
import { activeContracts } from './state.js';
import { readUpdatesRequest, updateOf } from './updates.js';

const CHANNELS = [
  '/v2/state/active-contracts',
  '/v2/updates',
  '/v2/updates/flats',
  '/v2/commands/completions',
] as const;
type Channel = (typeof CHANNELS)[number];

export const WS_PROTOCOL = 'daml.ws.auth';

/** the `upgrade` handler of a node's ledger listener */
export function ledgerWebSocket(
  env: LedgerNodeEnv,
  requests: RequestLog,
): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) => (protocols.has(WS_PROTOCOL) ? WS_PROTOCOL : false),
  });
  return (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://sandbox').pathname;
    const channel = CHANNELS.find((c) => c === path);
    requests.record(env.node, 'WS', channel ?? path);
    if (channel === undefined) {
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    // an injected failure: the participant's own error frame, or (a status it never answers) a proxy's refusal
    const status = env.faults.takeHttpError(env.node, 'WS', channel, 'before');
    const injected = status === undefined ? undefined : errorOfStatus(status, injectedMessage(status));
    if (status !== undefined && injected === undefined) {
      socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (injected !== undefined) return fail(ws, injected);
      // listen at once: the client sends its request as soon as the handshake completes
      const request = firstMessage(ws);
      void serve(env, channel, req, ws, request).catch((error: unknown) => {
        env.log(`${env.node} WS ${channel}: ${(error as Error).message}`);
        fail(ws, errors.internal(`internal sandbox error: ${(error as Error).message}`));
      });
    });
  };
}

function fail(ws: WebSocket, error: LedgerError | BodyError): void {
  const body = error instanceof LedgerError ? error.body() : errors.invalidArgument(error.message).body();
  if (ws.readyState === ws.OPEN) {
    ws.send(JSON.stringify(body));
    ws.close(1000);
  }
}

function firstMessage(ws: WebSocket): Promise<Buffer> {
  const message = new Promise<Buffer>((resolve, reject) => {
    ws.once('message', (data: Buffer, isBinary: boolean) =>
      isBinary ? reject(new BodyError('expected a text frame')) : resolve(data),
    );
    ws.once('close', () => reject(new Error('closed before the request')));
  });
  message.catch(() => undefined); // observed by serve(); a rejection before it awaits is not unhandled
  return message;
}

async function serve(
  env: LedgerNodeEnv,
  channel: Channel,
  req: IncomingMessage,
  ws: WebSocket,
  message: Promise<Buffer>,
): Promise<void> {
  let caller: Caller;
  let request: Reader;
  try {
    caller = await authenticate(env, req.headers);
    request = Reader.parse(await message);
    await env.catchUp();
  } catch (error) {
    if (error instanceof LedgerError || error instanceof BodyError) return fail(ws, error);
    if (error instanceof Error && error.message === 'closed before the request') return;
    throw error;
  }
  const latency = env.faults.latencyMs(env.node);
  if (latency > 0) await new Promise((r) => setTimeout(r, latency));
  try {
    if (channel === '/v2/state/active-contracts') {
      for (const entry of activeContracts(env, caller, request)) ws.send(JSON.stringify(entry));
      ws.close(1000);
      return;
    }
    if (channel === '/v2/commands/completions') return streamCompletions(env, caller, request, ws);
    return streamUpdates(env, caller, request, ws, channel);
  } catch (error) {
    if (error instanceof LedgerError || error instanceof BodyError) return fail(ws, error);
    throw error;
  }
}

/** what exists after `begin`, then every new entry, until `end` or the client closes */
function follow(
  env: LedgerNodeEnv,
  ws: WebSocket,
  begin: number,
  end: number | undefined,
  send: (entry: OffsetEntry) => void,
): void {
  let last = begin;
  const deliver = (entry: OffsetEntry): void => {
    if (entry.o <= last || ws.readyState !== ws.OPEN) return;
    last = entry.o;
    if (end === undefined || entry.o <= end) send(entry);
    if (end !== undefined && entry.o >= end) {
      stop();
      ws.close(1000);
    }
  };
  const stop = env.ledger.watch(deliver);
  ws.on('close', stop);
  for (const entry of env.ledger.entriesAfter(begin, end)) deliver(entry);
  if (end !== undefined && env.ledger.end >= end && ws.readyState === ws.OPEN) {
    stop();
    ws.close(1000);
  }
}

function streamUpdates(
  env: LedgerNodeEnv,
  caller: Caller,
  body: Reader,
  ws: WebSocket,
  channel: Channel,
): void {
  const kind = channel === '/v2/updates/flats' ? 'flats' : 'updates';
  const { begin, end, format } = readUpdatesRequest(env, caller, body, kind);
  follow(env, ws, begin, end, (entry) => {
    const update = updateOf(env, entry, format, kind);
    if (update !== undefined) ws.send(JSON.stringify(update));
  });
}

function streamCompletions(env: LedgerNodeEnv, caller: Caller, body: Reader, ws: WebSocket): void {
  const { userId, parties, begin } = readCompletionsRequest(env, caller, body);
  follow(env, ws, begin, undefined, (entry) => {
    if (isTx(entry) && completes(entry, userId, parties)) {
      ws.send(
        JSON.stringify({ completionResponse: { Completion: { value: completion(env.encoder, entry) } } }),
      );
    }
  });
}

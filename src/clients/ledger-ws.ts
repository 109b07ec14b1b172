/**
 * The JSON Ledger API's WebSocket transport for one-shot streams (`/v2/state/active-contracts`): open the socket
 * with the bearer token as the subprotocol `jwt.token.<JWT>` next to `daml.ws.auth`, send the request as one text
 * frame, collect one JSON element per text frame until the participant closes. Binary frames are ignored. undici's
 * WebSocket; no undici error and no token leaves this module.
 */
import type { Dispatcher } from 'undici';
import { WebSocket } from 'undici';
import { LedgerError } from './ledger-errors.js';

export interface StreamRequest {
  service: string;
  /** the ledger's HTTP base URL; `http` becomes `ws`, `https` becomes `wss` */
  baseUrl: string;
  path: string;
  token: string | undefined;
  request: unknown;
  timeoutMs: number;
  dispatcher?: Dispatcher | undefined;
  signal?: AbortSignal | undefined;
  /** called with each parsed frame; throwing stops the stream with that error */
  onElement: (element: unknown, text: string) => void;
}

const AUTH_PROTOCOL = 'daml.ws.auth';
/** Close codes of a stream that ended as intended: normal closure, or a close frame without a code. */
const NORMAL_CLOSE = new Set([1000, 1005]);
/** What a subprotocol may contain (an HTTP token, RFC 9110): a JWT does, an opaque token with `/` or `=` not. */
const PROTOCOL_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function webSocketUrl(baseUrl: string, path: string): string {
  const url = new URL(`${baseUrl.replace(/\/+$/, '')}${path}`);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

/** Runs one stream to its end; resolves when the participant closed it normally after the last frame. */
export function runStream(stream: StreamRequest): Promise<void> {
  const where = { service: stream.service, method: 'WS', path: stream.path };
  const failure = (kind: 'no-response' | 'unexpected-response' | 'other', message: string, hint?: string) =>
    new LedgerError({
      ...where,
      serviceMessage: message,
      retryability: kind === 'no-response' ? 'transient' : 'permanent',
      hint,
      kind,
    });

  if (stream.signal?.aborted) return Promise.reject(failure('no-response', 'request aborted'));

  if (stream.token !== undefined && !PROTOCOL_TOKEN.test(stream.token)) {
    return Promise.reject(
      failure(
        'other',
        'the access token cannot travel as a WebSocket subprotocol (it is not a JWT)',
        'use the HTTP transport for this query, or an identity provider that issues JWTs',
      ),
    );
  }
  const protocols = stream.token === undefined ? [] : [`jwt.token.${stream.token}`, AUTH_PROTOCOL];
  const socket = new WebSocket(webSocketUrl(stream.baseUrl, stream.path), {
    protocols,
    ...(stream.dispatcher ? { dispatcher: stream.dispatcher } : {}),
  });
  socket.binaryType = 'arraybuffer';

  return new Promise<void>((resolve, reject) => {
    let opened = false;
    let settled = false;

    const settle = (error?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stream.signal?.removeEventListener('abort', onAbort);
      if (error !== undefined) {
        if (socket.readyState === WebSocket.CONNECTING || socket.readyState === WebSocket.OPEN)
          socket.close();
        reject(error);
      } else {
        resolve();
      }
    };

    const timer = setTimeout(() => {
      settle(
        failure(
          'no-response',
          `the stream did not end within ${Math.round(stream.timeoutMs / 1000)} s`,
          'a large result takes longer: raise the step timeout, or narrow the filter',
        ),
      );
    }, stream.timeoutMs);
    const onAbort = (): void => settle(failure('no-response', 'request aborted'));
    stream.signal?.addEventListener('abort', onAbort, { once: true });

    socket.addEventListener('open', () => {
      opened = true;
      socket.send(JSON.stringify(stream.request));
    });

    socket.addEventListener('message', (event) => {
      if (settled || typeof event.data !== 'string') return;
      let element: unknown;
      try {
        element = JSON.parse(event.data);
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
        settle(failure('unexpected-response', 'a frame is not JSON'));
        return;
      }
      try {
        stream.onElement(element, event.data);
      } catch (error) {
        settle(error instanceof Error ? error : new Error('the stream handler failed'));
      }
    });

    socket.addEventListener('close', (event) => {
      if (!opened) {
        settle(
          failure(
            'no-response',
            'could not open the WebSocket (connection failed or handshake refused)',
            `is the participant's JSON API at ${stream.baseUrl}, and does it accept the token? The HTTP transport of the same query reports the status`,
          ),
        );
      } else if (NORMAL_CLOSE.has(event.code)) {
        settle();
      } else {
        const reason = event.reason ? `: ${event.reason.slice(0, 200)}` : '';
        settle(failure('no-response', `the stream ended abnormally (close code ${event.code}${reason})`));
      }
    });
  });
}

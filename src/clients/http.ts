/**
 * The one way this project makes HTTP requests (undici). It adds the bearer token (one re-authentication and
 * one retry on a 401), a per-request timeout, a response size limit, and turns every failure into a ServiceError
 * whose retryability says what the engine may do: retry (transient), fail (permanent), or stop and reconcile
 * because a side effect may have happened (ambiguous). No undici error, token, header or request body leaves here.
 */
import { Agent } from 'undici';
import type { Dispatcher } from 'undici';
import { LedgerbookError, ServiceError } from '../errors.js';
import type { Retryability } from '../errors.js';

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  /** the body parsed as JSON when it is JSON, else the text */
  body: unknown;
}

export interface HttpClient {
  /** a plain GET, for core.wait; never retried here (the engine retries) */
  get(
    url: string,
    options?: { headers?: Record<string, string>; signal?: AbortSignal },
  ): Promise<HttpResponse>;
}

/** Where bearer tokens come from (src/clients/auth.ts implements it). */
export interface TokenSource {
  token(signal?: AbortSignal): Promise<string>;
  /** drop the cached token; with `rejected`, only if it is still that token (so parallel 401s fetch once) */
  invalidate(rejected?: string): void;
}

export interface HttpServiceOptions {
  /** 'dpm:node1', 'ledger:node2', 'gateway' … (appears in errors) */
  service: string;
  baseUrl: string;
  /** bearer token; on a 401: invalidate(), fetch a new token, retry once */
  auth?: TokenSource | undefined;
  /** per request (headers + body), default 30 s */
  timeoutMs?: number;
  /** optional shared Agent */
  dispatcher?: Dispatcher;
  /** for debug logs (no bodies, no headers) */
  onRequest?: (info: { method: string; path: string }) => void;
  /** response size limit, default 64 MiB (DPM /workflows embeds base64 DARs) */
  maxResponseBytes?: number;
}

/** What is wrong with a 2xx body, or undefined when it has the expected shape. */
export type BodyCheck = (body: unknown) => string | undefined;

export interface RequestOptions {
  /** a list repeats its parameter (`?parties=a&parties=b`) */
  query?: Record<string, string | number | boolean | readonly string[] | undefined>;
  /** JSON-encoded */
  body?: unknown;
  /** default: true for GET/HEAD/PUT/DELETE/OPTIONS, false for POST/PATCH */
  idempotent?: boolean;
  signal?: AbortSignal;
  /** accepted statuses, default 2xx */
  expect?: number[];
  /** the expected shape of an accepted body; a mismatch is a permanent `unexpected response` */
  check?: BodyCheck;
  /** this request's timeout instead of the service's */
  timeoutMs?: number;
}

export interface HttpResult<T> {
  status: number;
  body: T;
  headers: Record<string, string>;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

const RECONCILE_HINT =
  'the request may or may not have taken effect; the step reads the service state (reconcile) before anything is repeated';

/** Body keys whose string values are secrets: scrubbed from any text a service sends back. */
const SECRET_KEY = /secret|password|passphrase|token|credential|private/i;

// ---------------------------------------------------------------------------------------------------------------
// One HTTP exchange: send, read the body within the limit, parse it. Failures before a status line are described
// by a TransportFailure (internal to this module).

interface Exchange {
  dispatcher: Dispatcher;
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs: number;
  maxBytes: number;
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  contentType: string;
  /** parsed JSON when the content type says JSON, else the text; undefined for an empty JSON body */
  body: unknown;
  isJson: boolean;
  /** set when the content type says JSON but the text is not */
  jsonError?: string;
}

type FailureKind = 'timeout' | 'aborted' | 'connect' | 'lost' | 'too-large' | 'invalid-request';

class TransportFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    /** the request reached the server (its bytes were being written on a connected socket) */
    readonly sent: boolean,
    readonly detail: string,
    cause?: unknown,
  ) {
    super(detail, { cause });
  }
}

/** Forwards every callback and notes when undici starts writing the request on a connected socket. */
class SendTracker implements Dispatcher.DispatchHandler {
  constructor(
    private readonly inner: Dispatcher.DispatchHandler,
    private readonly onSent: () => void,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.onSent();
    this.inner.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>[2],
    socket: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>[3],
  ): void {
    this.inner.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>[2],
    statusMessage?: string,
  ): void {
    this.inner.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.inner.onResponseData?.(controller, chunk);
  }

  onResponseEnd(
    controller: Dispatcher.DispatchController,
    trailers: Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseEnd']>>[1],
  ): void {
    this.inner.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.inner.onResponseError?.(controller, error);
  }
}

const ERROR_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found (DNS)',
  EAI_AGAIN: 'DNS lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  UND_ERR_SOCKET: 'connection closed by the other side',
  UND_ERR_HEADERS_TIMEOUT: 'no response headers in time',
  UND_ERR_BODY_TIMEOUT: 'response body stalled',
  UND_ERR_CLOSED: 'client closed',
  UND_ERR_DESTROYED: 'client destroyed',
};

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // happy-eyeballs connects (localhost → ::1 and 127.0.0.1) fail with an AggregateError of the attempts
  if (error instanceof AggregateError) return errorCode(error.errors[0]);
  return errorCode((error as { cause?: unknown }).cause);
}

function describeNetworkError(error: unknown): string {
  const code = errorCode(error);
  if (code === undefined) return error instanceof Error ? error.name : 'network error';
  if (code.startsWith('ERR_TLS') || code.includes('CERT') || code.startsWith('ERR_SSL'))
    return `TLS failure (${code})`;
  return `${ERROR_WORDS[code] ?? 'network error'} (${code})`;
}

function normalizeHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function isJsonType(contentType: string): boolean {
  const mime = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return mime === 'application/json' || mime.endsWith('+json');
}

async function readLimited(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      // leaving the loop destroys the stream (the async iterator's cleanup)
      throw new TransportFailure('too-large', true, `response larger than ${formatBytes(maxBytes)}`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/**
 * The pool a request uses when its caller gives none. Not undici's global dispatcher: that slot is shared with
 * Node's own bundled undici, and once anything in the process touches the global `fetch` (a database driver
 * does), it holds an Agent of another undici major whose handler interface our requests do not speak.
 */
let agent: Agent | undefined;
function sharedAgent(): Agent {
  return (agent ??= new Agent());
}

async function exchange(x: Exchange): Promise<RawResponse> {
  // The caller's signal and the timeout, combined by hand: AbortSignal.any would leave a weak reference on the
  // caller's long-lived signal for every request (two per transfer of a 100,000-recipient distribution).
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`no response within ${x.timeoutMs} ms`, 'TimeoutError'));
  }, x.timeoutMs);
  const onAbort = (): void => controller.abort(x.signal?.reason);
  if (x.signal?.aborted) onAbort();
  else x.signal?.addEventListener('abort', onAbort, { once: true });
  const signal = controller.signal;
  let sent = false;
  const tracked = x.dispatcher.compose(
    (dispatch) => (opts, handler) =>
      dispatch(
        opts,
        new SendTracker(handler, () => {
          sent = true;
        }),
      ),
  );
  try {
    const response = await tracked.request({
      origin: x.url.origin,
      path: `${x.url.pathname}${x.url.search}`,
      method: x.method,
      headers: x.headers,
      body: x.body,
      signal,
    });
    const headers = normalizeHeaders(response.headers);
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > x.maxBytes) {
      await response.body.dump({ limit: 1 }); // discards the body: closes the connection without reading it
      throw new TransportFailure(
        'too-large',
        true,
        `response of ${declared} bytes is larger than ${formatBytes(x.maxBytes)}`,
      );
    }
    const text = (await readLimited(response.body, x.maxBytes)).toString('utf8');
    const contentType = headers['content-type'] ?? '';
    if (!isJsonType(contentType)) {
      return { status: response.statusCode, headers, contentType, body: text, isJson: false };
    }
    if (text.trim() === '')
      return { status: response.statusCode, headers, contentType, body: undefined, isJson: true };
    try {
      return {
        status: response.statusCode,
        headers,
        contentType,
        body: JSON.parse(text) as unknown,
        isJson: true,
      };
    } catch (error) {
      return {
        status: response.statusCode,
        headers,
        contentType,
        body: text,
        isJson: false,
        jsonError: error instanceof Error ? error.message : 'invalid JSON',
      };
    }
  } catch (error) {
    if (error instanceof TransportFailure) throw error;
    if (timedOut) {
      throw new TransportFailure('timeout', sent, `no response within ${formatSeconds(x.timeoutMs)}`, error);
    }
    if (x.signal?.aborted) throw new TransportFailure('aborted', sent, 'request aborted', x.signal.reason);
    if (errorCode(error) === 'UND_ERR_INVALID_ARG') {
      throw new TransportFailure('invalid-request', false, 'invalid request', error);
    }
    if (!sent)
      throw new TransportFailure(
        'connect',
        false,
        `could not connect: ${describeNetworkError(error)}`,
        error,
      );
    throw new TransportFailure(
      'lost',
      true,
      `connection lost after the request was sent: ${describeNetworkError(error)}`,
      error,
    );
  } finally {
    clearTimeout(timer);
    x.signal?.removeEventListener('abort', onAbort);
  }
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

// ---------------------------------------------------------------------------------------------------------------
// Classification

/**
 * Retryability of a failure without a status: nothing reached the service → transient; the request reached it
 * and the answer was lost → transient when repeating is harmless, else ambiguous.
 */
function transportRetryability(failure: TransportFailure, idempotent: boolean): Retryability {
  switch (failure.kind) {
    case 'connect':
      return 'transient';
    case 'invalid-request':
    case 'too-large':
      return 'permanent';
    case 'timeout':
    case 'aborted':
    case 'lost':
      return !failure.sent || idempotent ? 'transient' : 'ambiguous';
  }
}

/**
 * Retryability of an error status. `serviceAnswered`: the body is the service's own JSON (the application decided,
 * rather than a proxy or a crash).
 */
export function statusRetryability(
  status: number,
  idempotent: boolean,
  serviceAnswered: boolean,
): Retryability {
  if (status === 429 || status === 502 || status === 503 || status === 504)
    return idempotent ? 'transient' : 'ambiguous';
  if (status >= 500) {
    if (idempotent) return 'transient';
    return serviceAnswered ? 'permanent' : 'ambiguous';
  }
  return 'permanent';
}

const MAX_MESSAGE_CHARS = 500;

/** The service's own error text: `{"error": …}` (or `message`) JSON, else the text body; HTML pages are not quoted. */
function serviceText(response: RawResponse): string | undefined {
  const body = response.body;
  if (typeof body === 'object' && body !== null) {
    for (const key of ['error', 'message', 'cause']) {
      const value = (body as Record<string, unknown>)[key];
      if (typeof value === 'string' && value !== '') return value;
    }
    return undefined;
  }
  if (typeof body !== 'string') return undefined;
  const text = body.trim();
  if (text === '') return undefined;
  if (text.startsWith('<')) return `(an HTML page, ${response.contentType || 'no content type'})`;
  return text;
}

function secretsIn(value: unknown, key: string | undefined, found: Set<string>): void {
  if (typeof value === 'string') {
    if (key !== undefined && SECRET_KEY.test(key) && value.length >= 4) found.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) secretsIn(item, key, found);
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) secretsIn(v, k, found);
  }
}

function scrubText(text: string, secrets: ReadonlySet<string>): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('***');
  return out;
}

function scrub(text: string, secrets: ReadonlySet<string>): string {
  const out = scrubText(text, secrets);
  return out.length > MAX_MESSAGE_CHARS ? `${out.slice(0, MAX_MESSAGE_CHARS)}…` : out;
}

/** The body with every secret this request carried replaced, in case the service echoed one back. */
function scrubBody(body: unknown, secrets: ReadonlySet<string>): unknown {
  if (secrets.size === 0) return body;
  if (typeof body === 'string') return scrubText(body, secrets);
  if (Array.isArray(body)) return body.map((item) => scrubBody(item, secrets));
  if (typeof body === 'object' && body !== null) {
    return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, scrubBody(v, secrets)]));
  }
  return body;
}

function statusHint(status: number, retryability: Retryability, authenticated: boolean): string | undefined {
  if (status === 401) {
    return authenticated
      ? 'the service refused the access token even after re-authenticating: check the client id and credentials, and that the service trusts the identity provider (issuer) that issued it'
      : 'the service requires a bearer token: configure credentials for it in the target';
  }
  if (status === 403)
    return 'the token is valid but lacks a role or permission this call needs: grant it in the identity provider';
  if (retryability === 'ambiguous') return RECONCILE_HINT;
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------

export class HttpService {
  readonly service: string;
  readonly baseUrl: string;
  private readonly auth: TokenSource | undefined;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly dispatcher: Dispatcher | undefined;
  private readonly onRequest: ((info: { method: string; path: string }) => void) | undefined;

  constructor(options: HttpServiceOptions) {
    this.service = options.service;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.auth = options.auth;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.dispatcher = options.dispatcher;
    this.onRequest = options.onRequest;
  }

  get<T = unknown>(path: string, options?: RequestOptions): Promise<HttpResult<T>> {
    return this.request<T>('GET', path, options);
  }

  post<T = unknown>(path: string, body?: unknown, options?: RequestOptions): Promise<HttpResult<T>> {
    return this.request<T>('POST', path, { ...options, body });
  }

  put<T = unknown>(path: string, body?: unknown, options?: RequestOptions): Promise<HttpResult<T>> {
    return this.request<T>('PUT', path, { ...options, body });
  }

  async request<T = unknown>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<HttpResult<T>> {
    method = method.toUpperCase();
    const idempotent = options.idempotent ?? IDEMPOTENT_METHODS.has(method);
    const url = this.url(path, options.query);
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const secrets = new Set<string>();
    secretsIn(options.body, undefined, secrets);

    let token = await this.token(method, path, options.signal);
    if (token !== undefined) secrets.add(token);
    const exchangeOptions = { idempotent, signal: options.signal, timeoutMs: options.timeoutMs, secrets };
    let response = await this.send(method, path, url, payload, token, exchangeOptions);
    if (response.status === 401 && this.auth !== undefined) {
      this.auth.invalidate(token);
      token = await this.token(method, path, options.signal);
      if (token !== undefined) secrets.add(token);
      response = await this.send(method, path, url, payload, token, exchangeOptions);
    }

    const accepted = options.expect
      ? options.expect.includes(response.status)
      : response.status >= 200 && response.status < 300;
    if (!accepted) throw this.statusError(method, path, response, idempotent, secrets);

    if (response.jsonError !== undefined) {
      throw this.unexpected(
        method,
        path,
        response.status,
        scrub(`the body is not valid JSON (${response.jsonError})`, secrets),
      );
    }
    if (options.check) {
      const problem = response.isJson
        ? options.check(response.body)
        : `expected a JSON body, got ${response.contentType || 'no content type'}`;
      if (problem !== undefined) throw this.unexpected(method, path, response.status, problem);
    }
    return { status: response.status, body: response.body as T, headers: response.headers };
  }

  private url(path: string, query: RequestOptions['query']): URL {
    const url = new URL(`${this.baseUrl}${path.startsWith('/') ? path : `/${path}`}`);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (Array.isArray(value)) for (const v of value as readonly string[]) url.searchParams.append(name, v);
      else if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url;
  }

  private async token(
    method: string,
    path: string,
    signal: AbortSignal | undefined,
  ): Promise<string | undefined> {
    if (this.auth === undefined) return undefined;
    try {
      return await this.auth.token(signal);
    } catch (error) {
      if (error instanceof LedgerbookError) throw error;
      throw new ServiceError(
        {
          service: this.service,
          method,
          path,
          serviceMessage: 'could not obtain an access token',
          retryability: 'transient',
          hint: 'check that the identity provider is reachable and the credentials in the target are right',
        },
        error,
      );
    }
  }

  private async send(
    method: string,
    path: string,
    url: URL,
    payload: string | undefined,
    token: string | undefined,
    options: {
      idempotent: boolean;
      signal: AbortSignal | undefined;
      timeoutMs: number | undefined;
      secrets: ReadonlySet<string>;
    },
  ): Promise<RawResponse> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'ledgerbook' };
    if (payload !== undefined) headers['content-type'] = 'application/json';
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    this.onRequest?.({ method, path });
    try {
      return await exchange({
        dispatcher: this.dispatcher ?? sharedAgent(),
        url,
        method,
        headers,
        body: payload,
        signal: options.signal,
        timeoutMs: options.timeoutMs ?? this.timeoutMs,
        maxBytes: this.maxBytes,
      });
    } catch (error) {
      if (!(error instanceof TransportFailure)) throw error;
      throw this.transportError(method, path, url, error, options.idempotent, options.secrets);
    }
  }

  private transportError(
    method: string,
    path: string,
    url: URL,
    failure: TransportFailure,
    idempotent: boolean,
    secrets: ReadonlySet<string>,
  ): ServiceError {
    const retryability = transportRetryability(failure, idempotent);
    let hint: string | undefined;
    if (retryability === 'ambiguous') hint = RECONCILE_HINT;
    else if (failure.kind === 'connect')
      hint = `is the service running and is ${url.origin} the right address?`;
    else if (failure.kind === 'too-large')
      hint = 'the response exceeds the client limit; narrow the query or clean up on the service side';
    return new ServiceError(
      {
        service: this.service,
        method,
        path,
        serviceMessage: scrub(failure.detail, secrets),
        retryability,
        hint,
      },
      failure.cause,
    );
  }

  private statusError(
    method: string,
    path: string,
    response: RawResponse,
    idempotent: boolean,
    secrets: ReadonlySet<string>,
  ): ServiceError {
    const serviceAnswered = response.isJson && typeof response.body === 'object' && response.body !== null;
    const retryability = statusRetryability(response.status, idempotent, serviceAnswered);
    const text = serviceText(response);
    return new ServiceError({
      service: this.service,
      method,
      path,
      status: response.status,
      serviceMessage: text === undefined ? undefined : scrub(text, secrets),
      retryability,
      hint: statusHint(response.status, retryability, this.auth !== undefined),
      body: scrubBody(response.body, secrets),
    });
  }

  private unexpected(method: string, path: string, status: number, problem: string): ServiceError {
    return new ServiceError({
      service: this.service,
      method,
      path,
      status,
      serviceMessage: `unexpected response: ${problem}`,
      retryability: 'permanent',
      hint: 'the service answered with a body of another shape than expected: is its version one this ledgerbook supports?',
    });
  }
}

/** The `HttpClient` of src/clients/clients.ts: a plain GET for core.wait that returns every status and never retries. */
export function createHttpClient(
  options: { timeoutMs?: number; dispatcher?: Dispatcher; maxResponseBytes?: number } = {},
): HttpClient {
  return {
    async get(url, requestOptions = {}): Promise<HttpResponse> {
      let target: URL;
      try {
        target = new URL(url);
        if (target.username !== '' || target.password !== '') {
          // credentials never travel inside URLs (a URL read from a step's outputs; the playbook's are checked
          // at validate)
          throw new ServiceError({
            service: `http ${target.host}`,
            method: 'GET',
            path: target.pathname,
            serviceMessage: 'the URL carries credentials (user:password@): refused, nothing was sent',
            retryability: 'permanent',
            hint: 'send a credential in a header instead of the URL',
          });
        }
      } catch (error) {
        if (error instanceof ServiceError) throw error;
        throw new ServiceError(
          {
            service: 'http',
            method: 'GET',
            path: '(invalid URL)',
            serviceMessage: 'not a valid URL',
            retryability: 'permanent',
          },
          error,
        );
      }
      const secrets = new Set(Object.values(requestOptions.headers ?? {}).filter((v) => v.length >= 4));
      try {
        const response = await exchange({
          dispatcher: options.dispatcher ?? sharedAgent(),
          url: target,
          method: 'GET',
          headers: { 'user-agent': 'ledgerbook', ...requestOptions.headers },
          signal: requestOptions.signal,
          timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          maxBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
        });
        return { status: response.status, headers: response.headers, body: response.body };
      } catch (error) {
        if (!(error instanceof TransportFailure)) throw error;
        throw new ServiceError(
          {
            service: `http ${target.host}`,
            method: 'GET',
            path: target.pathname,
            serviceMessage: scrub(error.detail, secrets),
            retryability: transportRetryability(error, true),
            hint: error.kind === 'connect' ? `is ${target.origin} up and reachable?` : undefined,
          },
          error.cause,
        );
      }
    },
  };
}

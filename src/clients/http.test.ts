import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../errors.js';
import { DEFAULT_MAX_RESPONSE_BYTES, HttpService, createHttpClient } from './http.js';
import type { TokenSource } from './http.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface TestServer {
  url: string;
  seen: Seen[];
  close(): Promise<void>;
}

const servers: TestServer[] = [];
const agent = new Agent();

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await agent.close();
});

/** A real HTTP server on a loopback port; `handle` answers each request after its body was read. */
async function serve(
  handle: (req: IncomingMessage, res: ServerResponse, seen: Seen) => void,
): Promise<TestServer> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      seen.push(entry);
      handle(req, res, entry);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const s: TestServer = {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(s);
  return s;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function text(res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

/** A token source handing out `t1`, `t2`, … ; a new token only after invalidate(). */
function tokens(): TokenSource & { invalidations: number; issued: string[] } {
  let n = 1;
  const source = {
    invalidations: 0,
    issued: [] as string[],
    token(): Promise<string> {
      const t = `tok-${'x'.repeat(12)}-${n}`;
      source.issued.push(t);
      return Promise.resolve(t);
    },
    invalidate(): void {
      source.invalidations += 1;
      n += 1;
    },
  };
  return source;
}

function service(
  url: string,
  extra: Partial<ConstructorParameters<typeof HttpService>[0]> = {},
): HttpService {
  return new HttpService({ service: 'dpm:node1', baseUrl: url, dispatcher: agent, ...extra });
}

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error('expected the request to fail');
}

describe('HttpService: successful requests', () => {
  it('sends the bearer token, the query and a JSON body, and parses a JSON answer', async () => {
    const server = await serve((_req, res) => json(res, 202, { ok: true }));
    const auth = tokens();
    const logged: Array<{ method: string; path: string }> = [];
    const http = service(`${server.url}/base/`, { auth, onRequest: (info) => logged.push(info) });

    const result = await http.post<{ ok: boolean }>(
      '/things',
      { a: 1 },
      { query: { prefix: 'p q', refresh: true, skip: undefined } },
    );

    expect(result).toMatchObject({ status: 202, body: { ok: true } });
    expect(result.headers['content-type']).toBe('application/json');
    expect(server.seen).toHaveLength(1);
    const [req] = server.seen;
    expect(req?.url).toBe('/base/things?prefix=p+q&refresh=true');
    expect(req?.headers.authorization).toBe(`Bearer ${auth.issued[0]}`);
    expect(req?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req?.body ?? '')).toEqual({ a: 1 });
    expect(logged).toEqual([{ method: 'POST', path: '/things' }]);
  });

  it('returns a text body as text and sends no body or token when there is none', async () => {
    const server = await serve((_req, res) => text(res, 200, 'plain words'));
    const result = await service(server.url).get('/t');
    expect(result.body).toBe('plain words');
    expect(server.seen[0]?.headers.authorization).toBeUndefined();
    expect(server.seen[0]?.body).toBe('');
  });

  it('accepts the statuses listed in `expect`', async () => {
    const server = await serve((_req, res) => json(res, 404, { error: 'gone' }));
    const result = await service(server.url).get('/x', { expect: [200, 404] });
    expect(result).toMatchObject({ status: 404, body: { error: 'gone' } });
  });
});

describe('HttpService: 401 → one re-authentication and one retry', () => {
  it('invalidates the token, fetches a new one and retries once', async () => {
    const auth = tokens();
    const server = await serve((req, res) => {
      if (req.headers.authorization === `Bearer ${auth.issued[0]}`)
        json(res, 401, { error: 'token is not active' });
      else json(res, 200, { fine: 1 });
    });
    const result = await service(server.url, { auth }).post('/onboarding', { x: 1 });
    expect(result.body).toEqual({ fine: 1 });
    expect(server.seen).toHaveLength(2);
    expect(auth.invalidations).toBe(1);
    expect(server.seen[1]?.headers.authorization).toBe(`Bearer ${auth.issued[1]}`);
    expect(server.seen[1]?.body).toBe(server.seen[0]?.body);
  });

  it('a second 401 is permanent, names credentials and issuer, and is not retried again', async () => {
    const auth = tokens();
    const server = await serve((_req, res) =>
      json(res, 401, { error: 'token issuer not trusted: https://idp/realms/x' }),
    );
    const error = await failure(service(server.url, { auth }).get('/node-config'));
    expect(server.seen).toHaveLength(2);
    expect(error.status).toBe(401);
    expect(error.retryability).toBe('permanent');
    expect(error.serviceMessage).toBe('token issuer not trusted: https://idp/realms/x');
    expect(error.hint).toMatch(/client id/);
    expect(error.hint).toMatch(/issuer/);
    expect(error.message).toBe(
      'dpm:node1 GET /node-config → 401: token issuer not trusted: https://idp/realms/x',
    );
  });

  it('without a token source a 401 fails at once', async () => {
    const server = await serve((_req, res) => json(res, 401, { error: 'missing bearer token' }));
    const error = await failure(service(server.url).get('/x'));
    expect(server.seen).toHaveLength(1);
    expect(error.retryability).toBe('permanent');
    expect(error.hint).toMatch(/requires a bearer token/);
  });

  it('a token source failure is a transient ServiceError; a ServiceError from it passes unchanged', async () => {
    const server = await serve((_req, res) => json(res, 200, {}));
    const broken: TokenSource = {
      token: () => Promise.reject(new Error('ECONNREFUSED idp')),
      invalidate: () => undefined,
    };
    const error = await failure(service(server.url, { auth: broken }).get('/x'));
    expect(error.retryability).toBe('transient');
    expect(error.serviceMessage).toBe('could not obtain an access token');

    const own = new ServiceError({
      service: 'idp',
      method: 'POST',
      path: '/token',
      status: 400,
      retryability: 'permanent',
    });
    const passing: TokenSource = { token: () => Promise.reject(own), invalidate: () => undefined };
    await expect(service(server.url, { auth: passing }).get('/x')).rejects.toBe(own);
    expect(server.seen).toHaveLength(0);
  });
});

describe('HttpService: error statuses', () => {
  it('403 is permanent with the server text and a hint about roles', async () => {
    const server = await serve((_req, res) => json(res, 403, { error: 'missing required role: dpm-admin' }));
    const error = await failure(service(server.url, { auth: tokens() }).post('/kick', {}));
    expect(server.seen).toHaveLength(1);
    expect(error).toMatchObject({
      status: 403,
      retryability: 'permanent',
      serviceMessage: 'missing required role: dpm-admin',
    });
    expect(error.hint).toMatch(/role/);
  });

  it.each([400, 404, 409, 422])('%i is permanent and keeps the parsed body', async (status) => {
    const body = {
      error: `nope ${status}`,
      missing_edges: [{ from: 'a::1', to: 'b::2', kind: 'mesh_hole' }],
    };
    const server = await serve((_req, res) => json(res, status, body));
    const error = await failure(service(server.url).get('/x'));
    expect(error).toMatchObject({ status, retryability: 'permanent', serviceMessage: `nope ${status}` });
    expect(error.body).toEqual(body);
  });

  it('a text/plain 400 (framework extractor error) becomes the service message', async () => {
    const server = await serve((_req, res) =>
      text(res, 400, 'Json deserialize error: missing field `dar_files` at line 1 column 2'),
    );
    const error = await failure(service(server.url).post('/dars/upload', {}));
    expect(error.serviceMessage).toBe('Json deserialize error: missing field `dar_files` at line 1 column 2');
    expect(error.retryability).toBe('permanent');
  });

  it.each([429, 502, 503, 504])('%i is transient when idempotent, ambiguous when not', async (status) => {
    const server = await serve((_req, res) => text(res, status, 'busy'));
    const http = service(server.url);
    expect((await failure(http.get('/x'))).retryability).toBe('transient');
    expect((await failure(http.put('/x', {}))).retryability).toBe('transient');
    const post = await failure(http.post('/x', {}));
    expect(post.retryability).toBe('ambiguous');
    expect(post.hint).toMatch(/reconcile/);
    expect((await failure(http.post('/x', {}, { idempotent: true }))).retryability).toBe('transient');
  });

  it('500: transient when idempotent; not idempotent: permanent for the service’s own JSON error, else ambiguous', async () => {
    const own = await serve((_req, res) => json(res, 500, { error: 'Failed to upload DARs: boom' }));
    expect((await failure(service(own.url).get('/x'))).retryability).toBe('transient');
    const decided = await failure(service(own.url).post('/dars/upload', {}));
    expect(decided).toMatchObject({
      retryability: 'permanent',
      serviceMessage: 'Failed to upload DARs: boom',
    });

    const proxy = await serve((_req, res) =>
      text(res, 500, '<html><body>Internal Server Error</body></html>', 'text/html'),
    );
    const unknown = await failure(service(proxy.url).post('/dars/upload', {}));
    expect(unknown.retryability).toBe('ambiguous');
    expect(unknown.serviceMessage).toBe('(an HTML page, text/html)');
  });
});

describe('HttpService: transport failures', () => {
  it('connection refused is transient even for a POST (nothing was sent)', async () => {
    const server = await serve(() => undefined);
    const url = server.url;
    await server.close();
    const error = await failure(service(url).post('/onboarding', {}));
    expect(error.retryability).toBe('transient');
    expect(error.status).toBeUndefined();
    expect(error.serviceMessage).toMatch(/could not connect: connection refused \(ECONNREFUSED\)/);
    expect(error.hint).toContain(url);
  });

  it('a timeout is transient when idempotent and ambiguous when not', async () => {
    const server = await serve(() => undefined); // never answers
    const http = service(server.url, { timeoutMs: 200 });
    const get = await failure(http.get('/slow'));
    expect(get.retryability).toBe('transient');
    expect(get.serviceMessage).toBe('no response within 200 ms');
    const post = await failure(http.post('/slow', { a: 1 }));
    expect(post.retryability).toBe('ambiguous');
    expect(post.hint).toMatch(/reconcile/);
    expect(server.seen).toHaveLength(2);
  });

  it('a timeout while the body streams counts too', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"a":'); // and never the rest
    });
    const error = await failure(service(server.url, { timeoutMs: 200 }).post('/x', {}));
    expect(error.retryability).toBe('ambiguous');
  });

  it('a connection reset after the request was sent: transient when idempotent, ambiguous when not', async () => {
    const server = await serve((req) => req.socket.destroy());
    const http = service(server.url);
    const get = await failure(http.get('/x'));
    expect(get.retryability).toBe('transient');
    expect(get.serviceMessage).toMatch(/^connection lost after the request was sent/);
    const post = await failure(http.post('/x', {}));
    expect(post.retryability).toBe('ambiguous');
  });

  it('an abort by the caller after sending a POST is ambiguous', async () => {
    const server = await serve(() => undefined);
    const controller = new AbortController();
    const pending = service(server.url).post('/x', {}, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort(new Error('step timeout'));
    const error = await failure(pending);
    expect(error).toMatchObject({ retryability: 'ambiguous', serviceMessage: 'request aborted' });
  });
});

describe('HttpService: response size limit', () => {
  it('refuses a body larger than the limit, declared or streamed', async () => {
    const declared = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '4096' });
      res.end('x'.repeat(4096));
    });
    const e1 = await failure(service(declared.url, { maxResponseBytes: 1024 }).get('/big'));
    expect(e1.retryability).toBe('permanent');
    expect(e1.serviceMessage).toBe('response of 4096 bytes is larger than 1024 bytes');

    const streamed = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }); // chunked, no content-length
      res.write('x'.repeat(800));
      res.end('y'.repeat(800));
    });
    const e2 = await failure(service(streamed.url, { maxResponseBytes: 1024 }).get('/big'));
    expect(e2.serviceMessage).toBe('response larger than 1024 bytes');
  });

  it('the default limit is 64 MiB', async () => {
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(64 * 1024 * 1024);
    const server = await serve((_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': String(64 * 1024 * 1024 + 1),
      });
      res.write('[');
    });
    const error = await failure(service(server.url).get('/workflows'));
    expect(error.serviceMessage).toBe('response of 67108865 bytes is larger than 64 MiB');
  });
});

describe('HttpService: unexpected 2xx bodies', () => {
  it('a body that fails the check is a permanent unexpected response', async () => {
    const server = await serve((_req, res) => json(res, 200, { peers: 'none' }));
    const error = await failure(
      service(server.url).get('/network-config', {
        check: (b) => (Array.isArray((b as { peers?: unknown }).peers) ? undefined : '/peers must be array'),
      }),
    );
    expect(error).toMatchObject({ status: 200, retryability: 'permanent' });
    expect(error.message).toBe(
      'dpm:node1 GET /network-config → 200: unexpected response: /peers must be array',
    );
  });

  it('invalid JSON under a JSON content type, or HTML where JSON is expected, is unexpected', async () => {
    const broken = await serve((_req, res) => text(res, 200, '{"a":', 'application/json'));
    expect((await failure(service(broken.url).get('/x'))).serviceMessage).toMatch(
      /^unexpected response: the body is not valid JSON/,
    );

    const spa = await serve((_req, res) => text(res, 200, '<!doctype html><html></html>', 'text/html'));
    const error = await failure(service(spa.url).get('/kick', { check: () => undefined }));
    expect(error.serviceMessage).toBe('unexpected response: expected a JSON body, got text/html');
  });
});

describe('HttpService: secrets stay out of errors', () => {
  it('an echoed token or secret body value is scrubbed from the message, the hint and the kept body', async () => {
    const server = await serve((req, res, seen) =>
      json(res, 400, {
        error: `bad request: ${req.headers.authorization ?? ''} ${seen.body}`,
        echo: seen.body,
      }),
    );
    const auth = tokens();
    const secret = 'kc-client-secret-123456';
    const error = await failure(
      service(server.url, { auth }).put('/party-config', {
        dec_party_id: 'p::1220',
        keycloak_client_secret: secret,
        keycloak_password: 'pw-98765',
      }),
    );
    const everything = `${error.message} ${error.hint ?? ''} ${error.serviceMessage ?? ''} ${JSON.stringify(error.body)}`;
    expect(everything).toContain('dec_party_id'); // the echo arrived…
    expect(everything).not.toContain(secret); // …without the secrets
    expect(everything).not.toContain('pw-98765');
    expect(everything).not.toContain(auth.issued[0]);
  });

  it('transport failures name no header', async () => {
    const server = await serve(() => undefined);
    const url = server.url;
    await server.close();
    const auth = tokens();
    const error = await failure(service(url, { auth }).get('/x'));
    expect(`${error.message} ${error.hint ?? ''}`).not.toContain(auth.issued[0]);
  });
});

describe('createHttpClient (core.wait)', () => {
  it('returns every status without throwing and parses JSON', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/up') json(res, 200, { status: 'ok' });
      else text(res, 503, 'starting');
    });
    const client = createHttpClient({ dispatcher: agent });
    expect(await client.get(`${server.url}/up`)).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(
      await client.get(`${server.url}/down`, { headers: { authorization: 'Bearer abcdef' } }),
    ).toMatchObject({
      status: 503,
      body: 'starting',
    });
    expect(server.seen[1]?.headers.authorization).toBe('Bearer abcdef');
  });

  it('turns a refused connection into a transient ServiceError without the headers', async () => {
    const server = await serve(() => undefined);
    const url = server.url;
    await server.close();
    const client = createHttpClient({ dispatcher: agent });
    const error = await failure(
      client.get(`${url}/health`, { headers: { authorization: 'Bearer sekrit-token' } }),
    );
    expect(error.retryability).toBe('transient');
    expect(error.path).toBe('/health');
    expect(`${error.message} ${error.hint ?? ''}`).not.toContain('sekrit-token');
  });

  it('refuses an invalid URL as permanent', async () => {
    const error = await failure(createHttpClient().get('not a url'));
    expect(error.retryability).toBe('permanent');
  });

  it('refuses a URL with credentials before sending anything, without quoting them', async () => {
    const server = await serve((_req, res) => json(res, 200, {}));
    const url = server.url.replace('http://', 'http://watcher:s3cret-word@');
    const error = await failure(createHttpClient({ dispatcher: agent }).get(`${url}/health`));
    expect(error.retryability).toBe('permanent');
    expect(error.message).toContain('carries credentials');
    expect(`${error.message} ${error.hint ?? ''}`).not.toContain('s3cret-word');
    expect(server.seen).toHaveLength(0);
  });
});

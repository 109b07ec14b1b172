/**
 * Access tokens from the identity provider (OpenID Connect; Keycloak-style issuer) with the password or the
 * client-credentials grant, through openid-client. A token is cached until shortly before it expires; concurrent
 * callers share one request. Every error leaving this module is a ServiceError of service `idp`.
 */
import { isLoopback } from '../loopback.js';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { ServiceError, type Retryability } from '../errors.js';

import type { TokenSource } from './http.js';

export interface Credentials {
  issuer: string;
  clientId: string;
  grant: 'password' | 'client_credentials';
  username?: string;
  password?: string;
  clientSecret?: string;
  scope?: string;
}

export interface TokenProviderOptions {
  /** called with every new access token (the engine registers it with its secret masker) */
  onToken?: (token: string) => void;
  /** epoch milliseconds; default Date.now */
  now?: () => number;
}

/** The service name on every error of the identity provider (other clients leave such errors as they are). */
export const IDP_SERVICE = 'idp';
const SERVICE = IDP_SERVICE;
/** A token is renewed this long before it expires, or 10 % of its lifetime when that is shorter. */
const RENEW_BEFORE_MS = 30_000;
const RENEW_FRACTION = 0.1;

/** Server metadata per issuer, shared by every provider in the process; a failed discovery is not kept. */
const discovered = new Map<string, Promise<oidc.ServerMetadata>>();

interface CachedToken {
  value: string;
  /** epoch ms after which token() fetches a new one */
  renewAt: number;
}

/** Which request failed: for the ServiceError's method and path, and the hint. */
interface Call {
  method: 'GET' | 'POST';
  url: string;
}

export class TokenProvider implements TokenSource {
  readonly #credentials: Credentials;
  readonly #onToken: ((token: string) => void) | undefined;
  readonly #now: () => number;
  #cached: CachedToken | undefined;
  #inFlight: Promise<string> | undefined;
  #configuration: oidc.Configuration | undefined;

  constructor(credentials: Credentials, options: TokenProviderOptions = {}) {
    this.#credentials = credentials;
    this.#onToken = options.onToken;
    this.#now = options.now ?? Date.now;
  }

  /**
   * A valid access token: the cached one while it is fresh, else a new one. An aborted `signal` rejects this
   * call with the signal's reason; a request already under way continues for the other callers.
   */
  token(signal?: AbortSignal): Promise<string> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const cached = this.#cached;
    if (cached !== undefined && this.#now() < cached.renewAt) return Promise.resolve(cached.value);

    if (this.#inFlight === undefined) {
      const request = this.#fetchToken().finally(() => {
        this.#inFlight = undefined;
      });
      // Every caller awaits `request` and sees its failure; this only keeps a failure that all callers have
      // stopped waiting for (they were aborted) from becoming an unhandled rejection.
      request.catch(() => undefined);
      this.#inFlight = request;
    }
    return signal === undefined ? this.#inFlight : untilAborted(this.#inFlight, signal);
  }

  /**
   * Drops the cached token, so that the next token() fetches a new one (after the service answered 401).
   * With `rejected`, only when the cached token is that one: a token another caller already renewed is kept.
   */
  invalidate(rejected?: string): void {
    if (rejected === undefined || this.#cached?.value === rejected) this.#cached = undefined;
  }

  async #fetchToken(): Promise<string> {
    const credentials = this.#credentials;
    const config = await this.#config();
    const call: Call = { method: 'POST', url: config.serverMetadata().token_endpoint ?? credentials.issuer };
    const parameters: Record<string, string> = credentials.scope ? { scope: credentials.scope } : {};

    let response: oidc.TokenEndpointResponse;
    try {
      if (credentials.grant === 'password') {
        response = await oidc.genericGrantRequest(config, 'password', {
          username: credentials.username ?? '',
          password: credentials.password ?? '',
          ...parameters,
        });
      } else {
        response = await oidc.clientCredentialsGrant(config, parameters);
      }
    } catch (error) {
      throw translate(error, call, credentials);
    }

    const value = response.access_token;
    this.#onToken?.(value); // before caching: no token is handed out that the masker has not seen
    this.#cached = { value, renewAt: this.#renewAt(value, response.expires_in) };
    return value;
  }

  #renewAt(token: string, expiresIn: number | undefined): number {
    const issuedAt = this.#now();
    let lifetimeMs: number | undefined;
    if (expiresIn !== undefined && expiresIn > 0) {
      lifetimeMs = expiresIn * 1000;
    } else {
      // No expires_in: read the lifetime from the token itself when it is a JWT (nothing is verified here).
      const exp = jwtExpiry(token);
      if (exp !== undefined) lifetimeMs = exp * 1000 - issuedAt;
    }
    if (lifetimeMs === undefined || lifetimeMs <= 0) return issuedAt; // unknown lifetime: never reused
    return issuedAt + lifetimeMs - Math.min(RENEW_BEFORE_MS, lifetimeMs * RENEW_FRACTION);
  }

  async #config(): Promise<oidc.Configuration> {
    if (this.#configuration !== undefined) return this.#configuration;
    const { issuer, clientId, clientSecret, grant } = this.#credentials;
    const call: Call = {
      method: 'GET',
      url: `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`,
    };

    const missing =
      grant === 'password'
        ? (['username', 'password'] as const).filter((field) => !this.#credentials[field])
        : clientSecret
          ? []
          : (['clientSecret'] as const);
    if (missing.length > 0) {
      throw new ServiceError({
        service: SERVICE,
        method: 'POST',
        path: pathOf(issuer),
        serviceMessage: `the ${grant} grant needs ${missing.join(' and ')}, which the target does not give`,
        retryability: 'permanent',
        hint: `set ${missing.map((field) => `auth.${field}`).join(' and ')} in the target`,
      });
    }

    const insecure = checkIssuerUrl(issuer, call);
    const metadata = await discover(issuer, clientId, insecure, call, this.#credentials);
    const config = new oidc.Configuration(
      metadata,
      clientId,
      undefined,
      clientSecret ? oidc.ClientSecretPost(clientSecret) : oidc.None(),
    );
    if (insecure) oidc.allowInsecureRequests(config);
    this.#configuration = config;
    return config;
  }
}

function discover(
  issuer: string,
  clientId: string,
  insecure: boolean,
  call: Call,
  credentials: Credentials,
): Promise<oidc.ServerMetadata> {
  let metadata = discovered.get(issuer);
  if (metadata === undefined) {
    metadata = oidc
      .discovery(new URL(issuer), clientId, undefined, undefined, {
        execute: insecure ? [oidc.allowInsecureRequests] : [],
      })
      .then((config) => ({ ...config.serverMetadata() }))
      .catch((error: unknown) => {
        discovered.delete(issuer);
        throw translate(error, call, credentials);
      });
    discovered.set(issuer, metadata);
  }
  return metadata;
}

/** Whether plain http is allowed (loopback only); throws a permanent ServiceError for any other non-https URL. */
function checkIssuerUrl(issuer: string, call: Call): boolean {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch (error) {
    throw new ServiceError(
      {
        service: SERVICE,
        method: call.method,
        path: issuer,
        serviceMessage: 'the issuer is not a URL',
        retryability: 'permanent',
        hint: 'set auth.issuer to the realm URL, e.g. https://keycloak.example.com/auth/realms/<realm>',
      },
      error,
    );
  }
  if (url.protocol === 'https:') return false;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return true;
  throw new ServiceError({
    service: SERVICE,
    method: call.method,
    path: pathOf(call.url),
    serviceMessage: `refusing to send credentials to ${url.protocol}//${url.host} without TLS`,
    retryability: 'permanent',
    hint: 'use an https:// issuer in auth.issuer; plain http is allowed only for loopback hosts (127.0.0.0/8, ::1, localhost)',
  });
}

/** openid-client's errors, and fetch's, as a ServiceError: retryability from the kind of failure, a hint for people. */
function translate(error: unknown, call: Call, credentials: Credentials): ServiceError {
  const path = pathOf(call.url);
  const fields = (
    retryability: Retryability,
    serviceMessage: string,
    status?: number,
    hint?: string,
  ): ConstructorParameters<typeof ServiceError>[0] => ({
    service: SERVICE,
    method: call.method,
    path,
    status,
    serviceMessage,
    retryability,
    hint,
  });

  if (error instanceof ServiceError) return error;

  if (error instanceof oidc.ResponseBodyError) {
    const message = error.error_description ? `${error.error}: ${error.error_description}` : error.error;
    return new ServiceError(
      fields(
        statusRetryability(error.status),
        message,
        error.status,
        hintFor(error.error, error.status, credentials),
      ),
      error,
    );
  }

  if (error instanceof oidc.ClientError) {
    const response = error.cause instanceof Response ? error.cause : undefined;
    switch (error.code) {
      case 'OAUTH_TIMEOUT':
        return new ServiceError(fields('transient', 'no answer in time'), error);
      case 'OAUTH_RESPONSE_IS_NOT_CONFORM':
      case 'OAUTH_RESPONSE_IS_NOT_JSON': {
        const status = response?.status;
        const retryability = status === undefined ? 'permanent' : statusRetryability(status);
        const hint =
          call.method === 'GET' && retryability === 'permanent'
            ? `check auth.issuer: ${call.url} should be the provider's OpenID configuration`
            : undefined;
        return new ServiceError(fields(retryability, error.message, status, hint), error);
      }
      case 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED': {
        const discoveredIssuer = (error.cause as { body?: { issuer?: unknown } } | undefined)?.body?.issuer;
        return new ServiceError(
          fields(
            'permanent',
            'the discovered issuer differs from auth.issuer',
            undefined,
            typeof discoveredIssuer === 'string'
              ? `set auth.issuer to ${discoveredIssuer}, the provider's issuer exactly`
              : "set auth.issuer to the provider's issuer exactly",
          ),
          error,
        );
      }
      case 'OAUTH_HTTP_REQUEST_FORBIDDEN':
        return new ServiceError(
          fields(
            'permanent',
            'the provider names a plain-http endpoint',
            undefined,
            'the provider must use https',
          ),
          error,
        );
      default:
        return new ServiceError(fields('permanent', `unexpected answer: ${error.message}`), error);
    }
  }

  // fetch() rejects with a TypeError whose cause is the system error (ECONNREFUSED, ENOTFOUND, …).
  if (error instanceof TypeError) {
    const code = systemErrorCode(error.cause);
    if (code !== undefined || error.message === 'fetch failed') {
      return new ServiceError(
        fields(
          'transient',
          `unreachable${code ? ` (${code})` : ''}`,
          undefined,
          'check that the identity provider is running and that auth.issuer names it',
        ),
        error,
      );
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ServiceError(fields('permanent', `unexpected failure: ${message}`), error);
}

function statusRetryability(status: number): Retryability {
  return status >= 500 || status === 429 || status === 408 ? 'transient' : 'permanent';
}

/** Names the setting to check, never its value. */
function hintFor(code: string, status: number, credentials: Credentials): string | undefined {
  const client = `client ${credentials.clientId}`;
  switch (code) {
    case 'invalid_grant':
      return credentials.grant === 'password'
        ? `check auth.username (${credentials.username ?? 'unset'}) and the secret behind auth.password`
        : `check auth.clientId and the secret behind auth.clientSecret`;
    case 'invalid_client':
    case 'unauthorized_client':
      if (status === 401) {
        return credentials.clientSecret
          ? `check auth.clientId (${credentials.clientId}) and the secret behind auth.clientSecret`
          : `check auth.clientId (${credentials.clientId}); a confidential client also needs auth.clientSecret`;
      }
      return `${client} may not use the ${credentials.grant} grant: check auth.grant and auth.clientId`;
    case 'invalid_scope':
      return `check auth.scope (${credentials.scope ?? 'unset'})`;
    case 'unsupported_grant_type':
      return `the provider does not offer the ${credentials.grant} grant: check auth.grant`;
    default:
      return undefined;
  }
}

function systemErrorCode(cause: unknown): string | undefined {
  if (typeof cause !== 'object' || cause === null) return undefined;
  const code = (cause as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

function jwtExpiry(token: string): number | undefined {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === 'number' ? exp : undefined;
  } catch (error) {
    if (error instanceof Error && error.name === 'JWTInvalid') return undefined; // an opaque token
    throw error;
  }
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch (error) {
    if (error instanceof TypeError) return url;
    throw error;
  }
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('token request aborted', 'AbortError');
}

/** `promise`, or a rejection with the signal's reason as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

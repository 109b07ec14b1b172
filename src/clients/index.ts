/**
 * The typed clients a step receives from its context. The engine builds them from the target
 * (src/clients/factory.ts); steps never construct a client themselves. Every error leaving src/clients is a
 * ServiceError (src/errors.ts).
 */
import type { DpmClient } from './dpm.js';

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

export interface Clients {
  readonly http: HttpClient;
  /** the decentralized-party manager of a target node, by node name */
  dpm(node: string): DpmClient;
  close(): Promise<void>;
}

/**
 * What a JSON Ledger API request runs with: the node's environment, and the caller — the ledger user named by
 * the token's `sub` on this participant, with its rights (canton-json-api.md §2). Tokens are verified as the
 * participant verifies them (issuer, signature, expiry; any client of the sandbox realm); a token whose user does
 * not exist on this participant, or is deactivated, is refused 403.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { AuthFailure, bearerToken, type TokenVerifier } from '../../auth/verifier.js';
import type { Capacity } from '../../capacity.js';
import type { Synchronizer } from '../../canton.js';
import type { FaultBook } from '../../faults.js';
import type { Reply } from '../../http/reply.js';
import type { Encoder } from '../encode.js';
import type { UserRecord } from '../entries.js';
import { errors } from '../errors.js';
import type { Ledger } from '../ledger.js';

export interface LedgerNodeEnv {
  node: string;
  participantId: string;
  insecure: boolean;
  ledger: Ledger;
  canton: Synchronizer;
  faults: FaultBook;
  verifier: TokenVerifier;
  capacity: Capacity;
  encoder: Encoder;
  /** applies work that fell due (attestor mints and withdraw requests) before a read or a write */
  catchUp(): Promise<void>;
  /** a request (or a stream) was authenticated with a verified token of this subject: the host's caller log */
  noteCaller?(subject: string): void;
  log(line: string): void;
}

export class Caller {
  constructor(
    readonly userId: string,
    readonly user: UserRecord | undefined,
    /** insecure mode: every right */
    readonly unrestricted: boolean,
  ) {}

  private has(kind: string, party?: string): boolean {
    return (
      this.unrestricted ||
      (this.user?.rights.some((r) => r.kind === kind && (party === undefined || r.party === party)) ?? false)
    );
  }

  get admin(): boolean {
    return this.has('ParticipantAdmin');
  }

  canActAs(party: string): boolean {
    return this.has('CanActAs', party);
  }

  canReadAs(party: string): boolean {
    return this.has('CanActAs', party) || this.has('CanReadAs', party) || this.has('CanReadAsAnyParty');
  }

  get readsAnyParty(): boolean {
    return this.has('CanReadAsAnyParty');
  }

  requireAdmin(): void {
    if (!this.admin)
      throw errors.permissionDenied(
        `user ${this.userId} is not a participant administrator (ParticipantAdmin)`,
      );
  }

  requireActAs(parties: string[]): void {
    const refused = parties.filter((p) => !this.canActAs(p));
    if (refused.length > 0)
      throw errors.permissionDenied(`user ${this.userId} may not act as ${refused.join(', ')}`);
  }

  requireReadAs(parties: string[]): void {
    const refused = parties.filter((p) => !this.canReadAs(p));
    if (refused.length > 0)
      throw errors.permissionDenied(`user ${this.userId} may not read as ${refused.join(', ')}`);
  }

  requireReadAny(): void {
    if (!this.readsAnyParty)
      throw errors.permissionDenied(`user ${this.userId} may not read as any party (CanReadAsAnyParty)`);
  }
}

/** the user id the sandbox's insecure mode runs every request as (the DPM's mock principal) */
export const INSECURE_USER = 'ledger-api-user';

/** the token of a request: the Authorization header, or the WebSocket subprotocol `jwt.token.<JWT>` */
export function requestToken(headers: IncomingHttpHeaders): string {
  const bearer = bearerToken(headers);
  if (bearer !== '') return bearer;
  const protocols = String(headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim());
  return protocols.find((p) => p.startsWith('jwt.token.'))?.slice('jwt.token.'.length) ?? '';
}

/** Authenticates a request; a refusal is the LedgerError to answer. */
export async function authenticate(env: LedgerNodeEnv, headers: IncomingHttpHeaders): Promise<Caller> {
  if (env.faults.takeExpiredToken(env.node)) throw errors.unauthenticated('token is not active');
  if (env.insecure) return new Caller(INSECURE_USER, env.ledger.user(env.participantId, INSECURE_USER), true);
  let sub: string;
  try {
    sub = (await env.verifier.verify(requestToken(headers))).sub;
  } catch (error) {
    if (error instanceof AuthFailure) throw errors.unauthenticated(error.message);
    throw error;
  }
  const user = env.ledger.user(env.participantId, sub);
  if (user === undefined)
    throw errors.permissionDenied(`user ${sub} does not exist on participant ${env.participantId}`);
  if (user.isDeactivated) throw errors.permissionDenied(`user ${sub} is deactivated`);
  env.noteCaller?.(sub);
  return new Caller(sub, user, false);
}

export interface LedgerRequest {
  env: LedgerNodeEnv;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  caller: Caller;
}

export interface LedgerRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  template: string;
  /** answers without a token (health probes) */
  public?: boolean;
  handle(request: LedgerRequest): Reply | Promise<Reply>;
}

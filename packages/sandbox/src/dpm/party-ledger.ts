/**
 * What a DPM node does on its participant's ledger for a decentralized party (dpm-api.md §9, §11, §12): it gets a
 * token with the party's credentials (PUT /party-config), and acts as the ledger user that token names — the
 * member party `actAs`, the decentralized party `readAs`, as the real node submits — with that user's real rights
 * on the participant. A read without credentials goes out without a token (UNAUTHENTICATED); a user without the
 * rights is refused PERMISSION_DENIED. Failures carry the participant's error as the node's gRPC client prints it,
 * which the routes put into their `Failed to …: <error>` texts.
 */
import { randomBytes } from 'node:crypto';
import { submit } from '../ledger/api/commands.js';
import type { LedgerNodeEnv } from '../ledger/api/context.js';
import { INSECURE_USER } from '../ledger/api/context.js';
import type { UserRecord } from '../ledger/entries.js';
import { errors, LedgerError } from '../ledger/errors.js';
import type { Command, DisclosedInput } from '../ledger/ledger.js';
import type { TxEntry } from '../ledger/entries.js';
import type { DpmNode } from './node.js';
import { fetchPartyToken } from './party-auth.js';

/** who the node acts as for a party */
export interface PartyActor {
  partyId: string;
  member: string;
  userId: string;
  /** insecure mode: the mock token, every right */
  unrestricted: boolean;
}

export type PartyActorOutcome =
  { kind: 'ok'; actor: PartyActor } | { kind: 'not-configured' } | { kind: 'token-failed'; error: string };

/** the member party the insecure node reports when no party is configured (`ledger-api-user::<namespace>`) */
export function mockMemberParty(node: DpmNode): string {
  return `${INSECURE_USER}::${node.participantId.split('::')[1] ?? ''}`;
}

/** `get_party_credentials`: the party's token and member party, or why there are none */
export async function partyActor(node: DpmNode, partyId: string): Promise<PartyActorOutcome> {
  const row = node.state.party_credentials.find((c) => c.dec_party_id === partyId);
  if (node.env.auth.insecure) {
    return {
      kind: 'ok',
      actor: {
        partyId,
        member: row?.member_party_id ?? mockMemberParty(node),
        userId: INSECURE_USER,
        unrestricted: true,
      },
    };
  }
  if (row === undefined) return { kind: 'not-configured' };
  const token = await fetchPartyToken(row);
  if (!token.ok) return { kind: 'token-failed', error: token.error };
  node.env.noteCaller('party', token.subject);
  return {
    kind: 'ok',
    actor: { partyId, member: row.member_party_id, userId: token.subject, unrestricted: false },
  };
}

/** A participant's refusal as the node's gRPC client (tonic) prints it. */
export class ParticipantError extends Error {
  constructor(readonly error: LedgerError) {
    super(grpcText(error));
  }
}

const GRPC_NAMES: Record<number, string> = {
  1: 'Cancelled',
  2: 'Unknown',
  3: 'InvalidArgument',
  4: 'DeadlineExceeded',
  5: 'NotFound',
  6: 'AlreadyExists',
  7: 'PermissionDenied',
  8: 'ResourceExhausted',
  9: 'FailedPrecondition',
  10: 'Aborted',
  11: 'OutOfRange',
  12: 'Unimplemented',
  13: 'Internal',
  14: 'Unavailable',
  15: 'DataLoss',
  16: 'Unauthenticated',
};

function grpcText(error: LedgerError): string {
  const correlation = randomBytes(4).toString('hex');
  return `status: ${GRPC_NAMES[error.grpcCode] ?? 'Unknown'}, message: ${JSON.stringify(`${error.code}(${error.category},${correlation}): ${error.cause}`)}`;
}

/** runs a participant call; a LedgerError becomes a ParticipantError */
async function onParticipant<T>(call: () => T | Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof LedgerError) throw new ParticipantError(error);
    throw error;
  }
}

function user(participant: LedgerNodeEnv, actor: PartyActor): UserRecord | undefined {
  return participant.ledger.user(participant.participantId, actor.userId);
}

function has(record: UserRecord | undefined, kind: string, party: string): boolean {
  return record?.rights.some((r) => r.kind === kind && r.party === party) ?? false;
}

function checkUser(participant: LedgerNodeEnv, actor: PartyActor): UserRecord | undefined {
  if (actor.unrestricted) return undefined;
  const record = user(participant, actor);
  if (record === undefined)
    throw errors.permissionDenied(
      `user ${actor.userId} does not exist on participant ${participant.participantId}`,
    );
  if (record.isDeactivated) throw errors.permissionDenied(`user ${actor.userId} is deactivated`);
  return record;
}

function canRead(record: UserRecord | undefined, party: string): boolean {
  return (
    record === undefined ||
    has(record, 'CanActAs', party) ||
    has(record, 'CanReadAs', party) ||
    record.rights.some((r) => r.kind === 'CanReadAsAnyParty')
  );
}

/** A read as the party (readAs the decentralized party); without credentials the participant refuses it. */
export async function readAsParty<T>(
  node: DpmNode,
  outcome: PartyActorOutcome,
  read: (parties: string[]) => T,
): Promise<T> {
  const participant = node.env.participant;
  return onParticipant(async () => {
    await participant.catchUp();
    if (outcome.kind !== 'ok')
      throw errors.unauthenticated('the request carries no token (no credentials configured for the party)');
    const actor = outcome.actor;
    const record = checkUser(participant, actor);
    if (!canRead(record, actor.partyId))
      throw errors.permissionDenied(`user ${actor.userId} may not read as ${actor.partyId}`);
    return read([actor.partyId]);
  });
}

/** A submission as the member party, reading as the decentralized party, with a fresh command id. */
export async function submitAsMember(
  node: DpmNode,
  actor: PartyActor,
  commands: Command[],
  disclosed: DisclosedInput[] = [],
): Promise<TxEntry> {
  const participant = node.env.participant;
  return onParticipant(async () => {
    const record = checkUser(participant, actor);
    if (record !== undefined) {
      if (!has(record, 'CanActAs', actor.member))
        throw errors.permissionDenied(`user ${actor.userId} may not act as ${actor.member}`);
      if (!canRead(record, actor.partyId))
        throw errors.permissionDenied(`user ${actor.userId} may not read as ${actor.partyId}`);
    }
    const outcome = await submit(participant, {
      participant: participant.participantId,
      userId: actor.userId,
      actAs: [actor.member],
      readAs: [actor.partyId],
      commandId: randomBytes(16).toString('hex'),
      commands,
      disclosed,
    });
    if (outcome.kind === 'lost') {
      await new Promise((resolve) => setTimeout(resolve, outcome.afterMs));
      throw new LedgerError('UNAVAILABLE', 1, 'transport error: connection closed before message completed');
    }
    return outcome.entry;
  });
}

/** the rights a ledger user has on the member party and the decentralized party (RightsStatus) */
export function rightsOf(
  node: DpmNode,
  userId: string,
  member: string,
  partyId: string,
): {
  member_party_act_as: boolean;
  member_party_read_as: boolean;
  dec_party_act_as: boolean;
  dec_party_read_as: boolean;
} {
  const participant = node.env.participant;
  const record = participant.ledger.user(participant.participantId, userId);
  return {
    member_party_act_as: has(record, 'CanActAs', member),
    member_party_read_as: has(record, 'CanReadAs', member),
    dec_party_act_as: has(record, 'CanActAs', partyId),
    dec_party_read_as: has(record, 'CanReadAs', partyId),
  };
}

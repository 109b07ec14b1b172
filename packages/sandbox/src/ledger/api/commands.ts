/**
 * Command submission (`submit-and-wait`, `-for-transaction`, the deprecated `-for-transaction-tree`) and the
 * completions list. A submission passes, in order: body decoding (400 text/plain), the caller's rights on
 * actAs/readAs (403), the ledger faults that answer instead of the ledger (overload, contention) or change what
 * it meets (stale contract ids), the capacity model (409 PARTICIPANT_BACKPRESSURE), then the ledger itself. The lost-response fault lets
 * the transaction commit and never answers.
 */
import { type Reply, json } from '../../http/reply.js';
import {
  type JsTransaction,
  completion,
  isTx,
  jsTransaction,
  jsTransactionTree,
  transactionEvents,
} from '../encode.js';
import type { TxEntry } from '../entries.js';
import { errors } from '../errors.js';
import type { EventFormat } from '../filters.js';
import type { Command, DisclosedInput, SubmitRequest } from '../ledger.js';
import type { Contract, InterfaceDef, TemplateDef } from '../model.js';
import { Reader, listParams } from './body.js';
import type { Caller, LedgerNodeEnv, LedgerRoute } from './context.js';
import { defaultFormat, readTransactionFormat } from './formats.js';
import { limitList } from './state.js';

const JS_COMMANDS_FIELDS = [
  'commands',
  'commandId',
  'actAs',
  'userId',
  'readAs',
  'workflowId',
  'deduplicationPeriod',
  'minLedgerTimeAbs',
  'minLedgerTimeRel',
  'submissionId',
  'disclosedContracts',
  'synchronizerId',
  'packageIdSelectionPreference',
  'prefetchContractKeys',
  'tapsMaxPasses',
] as const;

const COMMANDS = [
  'CreateCommand',
  'ExerciseCommand',
  'CreateAndExerciseCommand',
  'ExerciseByKeyCommand',
] as const;

function resolveTemplate(env: LedgerNodeEnv, identifier: string): TemplateDef | InterfaceDef {
  const def = env.ledger.catalog.lookup(identifier);
  if (def !== undefined) return def;
  const pkg = identifier.split(':')[0] ?? '';
  const uploaded = env.canton.uploadedPackages(env.participantId);
  if (pkg.startsWith('#') && !uploaded.some((p) => p.name === pkg.slice(1)))
    throw errors.packageNamesNotFound([pkg.slice(1)]);
  if (!pkg.startsWith('#') && !uploaded.some((p) => p.packageId === pkg))
    throw errors.templatesNotFound([identifier]);
  throw errors.unimplemented(`template ${identifier}: the sandbox runs only the token's templates`);
}

function asTemplate(def: TemplateDef | InterfaceDef, identifier: string): TemplateDef {
  if (def.kind !== 'template')
    throw errors.invalidArgument(`${identifier} is an interface; a create needs a template`);
  return def;
}

function readCommand(env: LedgerNodeEnv, reader: Reader): Command {
  const { tag, body } = reader.oneOf(COMMANDS);
  switch (tag) {
    case 'CreateCommand': {
      body.object(['templateId', 'createArguments']);
      const id = body.at('templateId').string();
      return {
        kind: 'create',
        template: asTemplate(resolveTemplate(env, id), id),
        arg: body.at('createArguments').requireRaw(),
      };
    }
    case 'ExerciseCommand': {
      body.object(['templateId', 'contractId', 'choice', 'choiceArgument']);
      const id = body.at('templateId').string();
      return {
        kind: 'exercise',
        target: resolveTemplate(env, id),
        cid: body.at('contractId').string(),
        choice: body.at('choice').string(),
        arg: body.at('choiceArgument').requireRaw(),
      };
    }
    case 'CreateAndExerciseCommand': {
      body.object(['templateId', 'createArguments', 'choice', 'choiceArgument']);
      const id = body.at('templateId').string();
      return {
        kind: 'createAndExercise',
        template: asTemplate(resolveTemplate(env, id), id),
        createArg: body.at('createArguments').requireRaw(),
        choice: body.at('choice').string(),
        arg: body.at('choiceArgument').requireRaw(),
      };
    }
    default:
      body.object(['templateId', 'contractKey', 'choice', 'choiceArgument']);
      throw errors.unimplemented('ExerciseByKeyCommand: the token templates have no contract keys');
  }
}

function readDeduplication(reader: Reader): SubmitRequest['deduplication'] {
  if (!reader.present()) return undefined;
  const { tag, body } = reader.oneOf(['DeduplicationDuration', 'DeduplicationOffset', 'Empty']);
  if (tag === 'Empty') return undefined;
  body.object(['value']);
  if (tag === 'DeduplicationOffset') return { kind: 'offset', offset: body.at('value').integer() };
  const duration = body.at('value');
  duration.object(['seconds', 'nanos', 'unknownFields']);
  const micros =
    duration.at('seconds').integer() * 1_000_000 +
    Math.floor((duration.at('nanos').optInteger() ?? 0) / 1000);
  if (micros < 0) throw errors.invalidArgument('the deduplication duration must not be negative');
  return { kind: 'duration', micros };
}

interface DecodedCommands {
  request: SubmitRequest;
  parties: string[];
}

/** JsCommands → a submission, with the caller's rights checked */
export function readCommands(env: LedgerNodeEnv, caller: Caller, reader: Reader): DecodedCommands {
  reader.object(JS_COMMANDS_FIELDS);
  const commandId = reader.at('commandId').string();
  const actAs = reader.at('actAs').strings();
  const readAs = reader.at('readAs').optStrings();
  const userId = reader.at('userId').optString();
  const commands = reader
    .at('commands')
    .array()
    .map((c) => readCommand(env, c));
  const disclosed: DisclosedInput[] = reader
    .at('disclosedContracts')
    .optArray()
    .map((d) => {
      d.object(['templateId', 'contractId', 'createdEventBlob', 'synchronizerId']);
      const templateId = d.at('templateId').optString();
      const contractId = d.at('contractId').optString();
      const synchronizer = d.at('synchronizerId').optString();
      if (synchronizer && synchronizer !== env.ledger.synchronizerId) {
        throw errors.invalidArgument(
          `disclosed contract ${contractId ?? ''} is on synchronizer ${synchronizer}, not ${env.ledger.synchronizerId}`,
        );
      }
      return {
        createdEventBlob: d.at('createdEventBlob').string(),
        ...(templateId ? { templateId } : {}),
        ...(contractId ? { contractId } : {}),
      };
    });
  const deduplication = readDeduplication(reader.at('deduplicationPeriod'));
  const synchronizerId = reader.at('synchronizerId').optString();
  reader.at('workflowId').optString();
  reader.at('submissionId').optString();
  if (commandId === '') throw errors.missingField('command_id');
  if (actAs.length === 0) throw errors.missingField('act_as');
  if (commands.length === 0) throw errors.missingField('commands');
  if (synchronizerId && synchronizerId !== env.ledger.synchronizerId) {
    throw errors.invalidArgument(
      `unknown synchronizer ${synchronizerId}; this participant is connected to ${env.ledger.synchronizerId}`,
    );
  }
  if (userId && userId !== caller.userId && !caller.unrestricted) {
    throw errors.permissionDenied(`the command names user ${userId}, but the token is for ${caller.userId}`);
  }
  caller.requireActAs(actAs);
  caller.requireReadAs(readAs);
  const workflowId = reader.at('workflowId').optString();
  const submissionId = reader.at('submissionId').optString();
  return {
    request: {
      participant: env.participantId,
      userId: caller.userId,
      actAs,
      readAs,
      commandId,
      ...(workflowId ? { workflowId } : {}),
      ...(submissionId ? { submissionId } : {}),
      commands,
      disclosed,
      ...(deduplication ? { deduplication } : {}),
    },
    parties: [...new Set([...actAs, ...readAs])],
  };
}

export type Outcome = { kind: 'committed'; entry: TxEntry } | { kind: 'lost'; afterMs: number };

/** Runs the faults and the capacity model, then the ledger. */
export async function submit(env: LedgerNodeEnv, request: SubmitRequest): Promise<Outcome> {
  await env.catchUp();
  if (env.faults.takeLedgerFault(env.node, 'overload') !== undefined) {
    throw errors.backpressure('injected fault: overload');
  }
  if (env.faults.takeLedgerFault(env.node, 'contention') !== undefined) {
    const inputs = referencedContracts(env, request);
    throw errors.lockedContracts(inputs.length > 0 ? inputs.slice(0, 1) : []);
  }
  if (env.faults.takeLedgerFault(env.node, 'stale-contracts') !== undefined) {
    const own = referencedContracts(env, request).filter((cid) => {
      const c = env.ledger.active(cid) as Contract;
      const parties = [...c.template.signatories(c.arg), ...c.template.observers(c.arg)];
      return [...request.actAs, ...(request.readAs ?? [])].some((p) => parties.includes(p));
    });
    await env.ledger.rotate(own);
  }
  env.capacity.admit();
  const lost = env.faults.takeLedgerFault(env.node, 'lost-response');
  const entry = await env.ledger.submit({ ...request, latencyMs: env.capacity.current.latencyMs });
  if (lost !== undefined && lost.kind === 'lost-response')
    return { kind: 'lost', afterMs: lost.ms ?? 30_000 };
  return { kind: 'committed', entry };
}

/** active contract ids a submission names: the exercised contracts and any contract id in its arguments */
function referencedContracts(env: LedgerNodeEnv, request: SubmitRequest): string[] {
  const out = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      if (env.ledger.active(value) !== undefined) out.add(value);
    } else if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(visit);
  };
  for (const c of request.commands) {
    if (c.kind === 'exercise') visit(c.cid);
    visit(c.arg);
  }
  return [...out];
}

function lostReply(afterMs: number): Reply {
  return { status: 0, drop: { afterMs } };
}

function transactionFor(
  env: LedgerNodeEnv,
  entry: TxEntry,
  format: EventFormat,
  shape: Parameters<typeof transactionEvents>[3],
): JsTransaction {
  return jsTransaction(env.encoder, entry, transactionEvents(env.encoder, entry, format, shape));
}

export const commandRoutes: LedgerRoute[] = [
  {
    method: 'POST',
    template: '/v2/commands/submit-and-wait',
    handle: async ({ env, caller, body }) => {
      const { request } = readCommands(env, caller, Reader.parse(body));
      const outcome = await submit(env, request);
      if (outcome.kind === 'lost') return lostReply(outcome.afterMs);
      return json(200, { updateId: outcome.entry.u, completionOffset: outcome.entry.o });
    },
  },
  {
    method: 'POST',
    template: '/v2/commands/submit-and-wait-for-transaction',
    handle: async ({ env, caller, body }) => {
      const reader = Reader.parse(body);
      reader.object(['commands', 'transactionFormat']);
      const { request, parties } = readCommands(env, caller, reader.at('commands'));
      const format = reader.at('transactionFormat').present()
        ? readTransactionFormat(env, caller, reader.at('transactionFormat'))
        : { format: defaultFormat(env, caller, parties), shape: 'TRANSACTION_SHAPE_ACS_DELTA' as const };
      const outcome = await submit(env, request);
      if (outcome.kind === 'lost') return lostReply(outcome.afterMs);
      return json(200, { transaction: transactionFor(env, outcome.entry, format.format, format.shape) });
    },
  },
  {
    method: 'POST',
    template: '/v2/commands/submit-and-wait-for-transaction-tree',
    handle: async ({ env, caller, body }) => {
      if (env.encoder.profile === 'strict')
        throw errors.deprecatedDisabled('The endpoint /v2/commands/submit-and-wait-for-transaction-tree');
      const { request, parties } = readCommands(env, caller, Reader.parse(body));
      const format = defaultFormat(env, caller, parties);
      const outcome = await submit(env, request);
      if (outcome.kind === 'lost') return lostReply(outcome.afterMs);
      const entry = outcome.entry;
      const events = transactionEvents(env.encoder, entry, format, 'TRANSACTION_SHAPE_LEDGER_EFFECTS');
      return json(200, { transactionTree: jsTransactionTree(env.encoder, entry, events) });
    },
  },
  {
    method: 'POST',
    template: '/v2/commands/completions',
    handle: async ({ env, caller, body, query }) => {
      const { limit, idleMs } = listParams(query);
      const { userId, parties, begin } = readCompletionsRequest(env, caller, Reader.parse(body));
      await env.catchUp();
      const collect = (): Array<Record<string, unknown>> =>
        env.ledger
          .entriesAfter(begin)
          .filter(isTx)
          .filter((e) => completes(e, userId, parties))
          .map((e) => ({ completionResponse: { Completion: { value: completion(env.encoder, e) } } }));
      let items = collect();
      if (items.length === 0 && idleMs !== undefined && idleMs > 0) {
        await env.ledger.nextOffset(idleMs);
        items = collect();
      }
      return json(200, limitList(items, limit));
    },
  },
];

/**
 * A completions request (HTTP list or WebSocket), validated as Canton validates it: the user (another than the
 * token's needs admin rights), read rights on the parties, a non-negative begin at most the ledger end, at least
 * one party.
 */
export function readCompletionsRequest(
  env: LedgerNodeEnv,
  caller: Caller,
  body: Reader,
): { userId: string; parties: string[]; begin: number } {
  body.object(['userId', 'parties', 'beginExclusive']);
  const userId = body.at('userId').optString() || caller.userId;
  const parties = body.at('parties').strings();
  const begin = body.at('beginExclusive').optInteger() ?? 0;
  if (userId !== caller.userId) caller.requireAdmin();
  caller.requireReadAs(parties);
  if (begin < 0) throw errors.negativeOffset('begin_exclusive', begin);
  if (begin > env.ledger.end) throw errors.offsetAfterLedgerEnd('Begin', begin, env.ledger.end);
  if (parties.length === 0) throw errors.missingField('parties');
  return { userId, parties, begin };
}

/** the transaction completes a command of this user acting as one of these parties */
export function completes(entry: TxEntry, userId: string, parties: readonly string[]): boolean {
  return entry.user === userId && entry.act.some((p) => parties.includes(p));
}

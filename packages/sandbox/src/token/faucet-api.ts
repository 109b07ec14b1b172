/**
 * The devnet faucet (`POST /api/faucet`, wrapped-api.md §6): where minting is not available, it sends test
 * tokens as an ordinary transfer offer (or a direct transfer to a preapproved receiver) from the faucet party,
 * which the recipient then accepts. Answers `{"success": true|false, "message": "…"}`; requests are served one at
 * a time (the faucet chains its own change).
 */
import type { Decimal } from 'decimal.js';
import { json } from '../http/reply.js';
import { blobOf } from '../ledger/blob.js';
import { isOf } from '../ledger/model.js';
import { LedgerError } from '../ledger/errors.js';
import type { Ledger } from '../ledger/ledger.js';
import { formatTime, parseNumeric } from '../ledger/lf.js';
import type { FaultBook } from '../faults.js';
import { type ServiceRoute, ServiceFailure, jsonBody } from '../service/route.js';
import { Factory } from './factory.js';
import { Holding } from './holding.js';
import { TransferFactoryI } from './interfaces.js';
import { InstrumentConfiguration, TransferPreapproval } from './transfer.js';
import { CONTEXT, META } from './types.js';
import type { World } from './world.js';

/** the most one request may ask for */
export const FAUCET_MAX = '10';

interface Env {
  ledger: Ledger;
  world: World;
  faults: FaultBook;
  network: string;
  participant: string;
  catchUp(): Promise<void>;
}

const refused = (message: string): ServiceFailure => new ServiceFailure(400, { success: false, message });

export function faucetRoutes(env: Env): ServiceRoute[] {
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  return [
    {
      method: 'POST',
      template: '/api/faucet',
      handle: async ({ body }) => {
        const request = jsonBody(body, refused) as {
          network?: unknown;
          recipient_party?: unknown;
          amount?: unknown;
        };
        if (typeof request !== 'object' || request === null)
          throw refused('the body must be {"network", "recipient_party", "amount"}');
        const refusal = env.faults.takeRefusal('faucet');
        if (refusal !== undefined) return json(200, { success: false, message: refusal });
        if (request.network !== 'devnet')
          throw refused(`the faucet serves the devnet only, got network ${JSON.stringify(request.network)}`);
        if (env.network !== 'devnet')
          throw refused(`this sandbox runs ${env.network}: the faucet serves the devnet only`);
        const recipient = request.recipient_party;
        if (typeof recipient !== 'string' || !env.ledger.partyKnown(recipient)) {
          throw refused(`recipient_party ${JSON.stringify(recipient)} is not a party known on the network`);
        }
        const amount = parseNumeric(request.amount);
        if (
          amount === undefined ||
          typeof request.amount !== 'string' ||
          amount.lessThanOrEqualTo(0) ||
          amount.greaterThan(FAUCET_MAX)
        ) {
          throw refused(
            `amount must be a decimal string above 0 and at most ${FAUCET_MAX}, got ${JSON.stringify(request.amount)}`,
          );
        }
        await env.catchUp();
        return serial(async () => {
          try {
            const result = await send(env, recipient, amount);
            return json(200, { success: true, message: result });
          } catch (error) {
            if (error instanceof LedgerError)
              return json(200, { success: false, message: `the faucet could not send: ${error.cause}` });
            throw error;
          }
        });
      },
    },
  ];
}

async function send(env: Env, recipient: string, amount: Decimal): Promise<string> {
  const { ledger, world } = env;
  const factory = [...ledger.contractsOfTemplate(Factory)].find((c) => c.arg.provider === world.admin);
  const config = [...ledger.contractsOfTemplate(InstrumentConfiguration)].find(
    (c) => c.arg.registrar === world.admin,
  );
  if (factory === undefined || config === undefined)
    throw new ServiceFailure(503, { success: false, message: 'the registry has no active factory' });
  const inputs = [...ledger.contractsOf(world.faucet)]
    .filter((c) => isOf(c, Holding) && c.arg.owner === world.faucet && c.arg.lock === null)
    .map((c) => c.cid);
  const preapproval = [...ledger.contractsOfTemplate(TransferPreapproval)].find(
    (c) => c.arg.receiver === recipient,
  );
  const now = Date.now() * 1000;
  const values: Record<string, unknown> = {
    [CONTEXT.instrumentConfiguration]: { tag: 'AV_ContractId', value: config.cid },
  };
  if (preapproval !== undefined)
    values[CONTEXT.transferPreapproval] = { tag: 'AV_ContractId', value: preapproval.cid };
  const entry = await ledger.submit({
    participant: env.participant,
    userId: 'sandbox-faucet',
    actAs: [world.faucet],
    commandId: `faucet-${now}`,
    commands: [
      {
        kind: 'exercise',
        target: TransferFactoryI,
        cid: factory.cid,
        choice: 'TransferFactory_Transfer',
        arg: {
          expectedAdmin: world.admin,
          transfer: {
            sender: world.faucet,
            receiver: recipient,
            amount: amount.toFixed(),
            instrumentId: world.instrument,
            requestedAt: formatTime(now - 1_000_000),
            executeBefore: formatTime(now + 7 * 24 * 3600 * 1_000_000),
            inputHoldingCids: inputs,
            meta: { values: { [META.reason]: 'faucet' } },
          },
          extraArgs: { context: { values }, meta: { values: {} } },
        },
      },
    ],
    disclosed: [factory, config, ...(preapproval ? [preapproval] : [])].map((c) => ({
      createdEventBlob: blobOf(c),
      contractId: c.cid,
    })),
    internal: true,
  });
  const root = entry.nodes[0];
  const output = (
    root?.k === 'e' ? (root.res as { output?: { tag?: string; value?: Record<string, unknown> } }) : undefined
  )?.output;
  return output?.tag === 'TransferInstructionResult_Pending'
    ? `sent ${amount.toFixed()} CBTC to ${recipient} as transfer offer ${String(output.value?.transferInstructionCid)}: accept it to receive the funds`
    : `sent ${amount.toFixed()} CBTC to ${recipient} (preapproved: settled at once)`;
}

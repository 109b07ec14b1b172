/**
 * Ledger submissions per second the sandbox sustains, capacity model off: `ledgerbook sandbox up` in its own
 * process (the build in dist/), a client in this one sending transfers as the wrapped SDK's chained distribution
 * does — one registry factory fetch per chain, then per transfer one submit-and-wait-for-transaction whose
 * change holding feeds the next — with several chains in flight. Reports transfers per second and the latency
 * of a submission (p50, p99), and the sandbox process's memory. Target: at least 200 transfers per second, so
 * that the sandbox is never the bottleneck of a client benchmark.
 *
 *   node bench/ledger-throughput.bench.mjs [--transfers 5000] [--chains 16] [--json]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process, { stdout } from 'node:process';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';

const { values: args } = parseArgs({
  options: {
    transfers: { type: 'string', default: '5000' },
    chains: { type: 'string', default: '16' },
    json: { type: 'boolean', default: false },
  },
});
const TRANSFERS = Number(args.transfers);
const CHAINS = Number(args.chains);
const TARGET_PER_SECOND = 200;
const TRANSFER_FACTORY =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
const HOLDING = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding';

const dir = await mkdtemp(join(tmpdir(), 'lb-bench-ledger-'));
const child = spawn(process.execPath, ['dist/cli/main.js', 'sandbox', 'up', '--state-dir', dir], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const agent = new Agent({ connections: CHAINS * 2, pipelining: 1 });

try {
  const urls = await new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      const line = buffer.split('\n')[0];
      if (buffer.includes('\n')) resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`sandbox up exited ${code}`)));
  });
  const password = (await readFile(join(dir, 'sandbox', 'secrets', 'operator-password'), 'utf8')).trim();
  const token = await obtainToken(urls.idp.tokenUrl, password);
  const ledger = urls.nodes[0].ledger;
  const world = await json('GET', `${urls.admin}/world`);
  const minter = world.minter.party;
  const admin = world.admin.party;
  const receivers = world.holders.map((h) => h.party);
  const registry = `${urls.registry}/api/token-standard/v0/registrars/${admin}/registry`;
  const auth = { authorization: `Bearer ${token}` };

  const submit = (body) => json('POST', `${ledger}/v2/commands/submit-and-wait-for-transaction`, body, auth);
  const transferArg = (receiver, amount, inputs) => ({
    expectedAdmin: admin,
    transfer: {
      sender: minter,
      receiver,
      amount,
      instrumentId: { admin, id: 'CBTC' },
      requestedAt: new Date(Date.now() - 1000).toISOString(),
      executeBefore: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      inputHoldingCids: inputs,
      meta: { values: {} },
    },
    extraArgs: { context: { values: {} }, meta: { values: {} } },
  });
  const factory = async (arg) => {
    const f = await json('POST', `${registry}/transfer-instruction/v1/transfer-factory`, {
      choiceArguments: arg,
      excludeDebugFields: true,
    });
    const disclosed = f.choiceContext.disclosedContracts.map(
      ({ templateId, contractId, createdEventBlob, synchronizerId }) => ({
        templateId,
        contractId,
        createdEventBlob,
        synchronizerId,
      }),
    );
    return { factoryId: f.factoryId, context: f.choiceContext.choiceContextData, disclosed };
  };
  const command = (f, arg) => ({
    commands: {
      actAs: [minter],
      commandId: randomUUID(),
      disclosedContracts: f.disclosed,
      commands: [
        {
          ExerciseCommand: {
            templateId: TRANSFER_FACTORY,
            contractId: f.factoryId,
            choice: 'TransferFactory_Transfer',
            choiceArgument: { ...arg, extraArgs: { context: f.context, meta: { values: {} } } },
          },
        },
      ],
    },
    transactionFormat: {
      eventFormat: { filtersByParty: { [minter]: {} }, verbose: true },
      transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
    },
  });
  const result = (body) =>
    body.transaction.events.find((e) => e.ExercisedEvent).ExercisedEvent.exerciseResult;

  // split the minter's genesis holding into one input per chain (self transfers)
  const end = (await json('GET', `${ledger}/v2/state/ledger-end`, undefined, auth)).offset;
  const acs = await json(
    'POST',
    `${ledger}/v2/state/active-contracts`,
    {
      eventFormat: {
        filtersByParty: {
          [minter]: {
            cumulative: [
              {
                identifierFilter: {
                  InterfaceFilter: { value: { interfaceId: HOLDING, includeInterfaceView: true } },
                },
              },
            ],
          },
        },
      },
      activeAtOffset: end,
    },
    auth,
  );
  let rest = acs.map((e) => e.contractEntry.JsActiveContract.createdEvent.contractId);
  const heads = [];
  for (let i = 0; i < CHAINS; i++) {
    const arg = {
      ...transferArg(minter, '5', rest),
      transfer: { ...transferArg(minter, '5', rest).transfer, receiver: minter },
    };
    const body = await submit(command(await factory(arg), arg));
    const r = result(body);
    heads.push(r.output.value.receiverHoldingCids[0]);
    rest = r.senderChangeCids;
  }

  const latencies = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    heads.map(async (head) => {
      let input = head;
      const f = await factory(transferArg(receivers[0], '0.0001', [input]));
      for (;;) {
        const n = next++;
        if (n >= TRANSFERS) return;
        const arg = transferArg(receivers[n % receivers.length], '0.0001', [input]);
        const t0 = performance.now();
        const body = await submit(command(f, arg));
        latencies.push(performance.now() - t0);
        input = result(body).senderChangeCids[0];
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const state = await json('GET', `${urls.admin}/state`);
  const rss = await processRss(child.pid);
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  const report = {
    transfers: TRANSFERS,
    chains: CHAINS,
    seconds: Number(seconds.toFixed(2)),
    perSecond: Math.round(TRANSFERS / seconds),
    p50Ms: Number(at(0.5).toFixed(1)),
    p99Ms: Number(at(0.99).toFixed(1)),
    ledgerEnd: state.ledger.end,
    activeContracts: state.ledger.activeContracts,
    sandboxRssMiB: rss === undefined ? undefined : Math.round(rss / 1048576),
    target: TARGET_PER_SECOND,
    met: TRANSFERS / seconds >= TARGET_PER_SECOND,
  };
  if (args.json) stdout.write(`${JSON.stringify(report)}\n`);
  else {
    stdout.write(
      `${TRANSFERS} transfers over ${CHAINS} chains in ${report.seconds} s: ${report.perSecond} transfers/s (target ≥ ${TARGET_PER_SECOND}: ${report.met ? 'met' : 'NOT met'})\n`,
    );
    stdout.write(
      `submission latency p50 ${report.p50Ms} ms, p99 ${report.p99Ms} ms; ledger end ${report.ledgerEnd}, ${report.activeContracts} active contracts; sandbox RSS ${report.sandboxRssMiB} MiB\n`,
    );
  }
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  await agent.close();
  await rm(dir, { recursive: true, force: true });
}

async function json(method, url, body, headers = {}) {
  const response = await request(url, {
    method,
    dispatcher: agent,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${method} ${url}: ${response.statusCode} ${text}`);
  return JSON.parse(text);
}

async function obtainToken(tokenUrl, password) {
  const response = await request(tokenUrl, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'password',
      client_id: 'ledgerbook-cli',
      username: 'operator1',
      password,
    }).toString(),
  });
  return (await response.body.json()).access_token;
}

async function processRss(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kb === undefined ? undefined : Number(kb) * 1024;
}

/**
 * token.distribute against the sandbox (`ledgerbook sandbox up` in its own process, the CLI from dist/):
 *
 *   (a) latency-bound — capacity model off, every submission waiting `--latency` ms before it commits: the
 *       ledgerbook distribution against, in the same run, a sequential baseline that sends one transfer at a time
 *       and chains each on the last one's change holding, as the vendor SDK does (one registry factory fetch for
 *       the run, then one submission per transfer, no journal).
 *   (b) capacity-bound — `--limit` transactions per `--window` seconds: the share of that capacity the
 *       distribution sustains (the time the network needed at least for its transactions, over the time it took),
 *       and that every transfer landed although the network refused some (409 PARTICIPANT_BACKPRESSURE).
 *   (c) memory — a `--memory`-recipient file (parties allocated through the admin API), the CLI's peak RSS
 *       (VmHWM, polled from /proc: Linux), its rate, and the journal's cost per recipient.
 *
 *   node bench/distribute.bench.mjs [--only latency|capacity|memory] [--recipients 300] [--latency 250]
 *     [--lanes 9] [--capacity-recipients 400] [--limit 100] [--window 10] [--memory 100000] [--json]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process, { stdout } from 'node:process';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    recipients: { type: 'string', default: '300' },
    latency: { type: 'string', default: '250' },
    lanes: { type: 'string', default: '9' },
    'capacity-recipients': { type: 'string', default: '1000' },
    limit: { type: 'string', default: '100' },
    window: { type: 'string', default: '10' },
    memory: { type: 'string', default: '100000' },
    json: { type: 'boolean', default: false },
  },
});
const CLI = new URL('../dist/cli/main.js', import.meta.url).pathname;
const TRANSFER_FACTORY =
  '#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory';
const HOLDING = '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding';
const SUBMIT = '/v2/commands/submit-and-wait-for-transaction';

const dir = await mkdtemp(join(tmpdir(), 'lb-bench-distribute-'));
const sandbox = spawn(
  process.execPath,
  [CLI, 'sandbox', 'up', '--state-dir', dir, '--write-target', join(dir, 'target.yaml')],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const results = {};
try {
  const urls = await new Promise((resolve, reject) => {
    let buffer = '';
    sandbox.stdout.on('data', (chunk) => {
      buffer += chunk;
      if (buffer.includes('\n')) resolve(JSON.parse(buffer.split('\n')[0]));
    });
    sandbox.once('exit', (code) => reject(new Error(`sandbox up exited ${code}`)));
  });
  const world = await http('GET', `${urls.admin}/world`);
  const minter = world.minter.party;
  const holders = world.holders.map((h) => h.party);
  const run = (only) => args.only === undefined || args.only === only;
  if (run('latency')) results.latency = await latencyBound(urls, world, minter, holders);
  if (run('capacity')) results.capacity = await capacityBound(urls, minter, holders);
  if (run('memory')) results.memory = await memory(urls);
  stdout.write(args.json ? `${JSON.stringify(results)}\n` : report(results));
} finally {
  sandbox.kill('SIGTERM');
  await new Promise((r) => sandbox.once('exit', r));
  await rm(dir, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------------------------

async function latencyBound(urls, world, minter, holders) {
  const latency = Number(args.latency);
  const n = Number(args.recipients);
  await http('PUT', `${urls.admin}/capacity`, { latencyMs: latency, limit: null });
  const baseline = await sequentialBaseline(urls, world, minter, holders.slice(1, n + 1));
  const ours = await distribute('latency', holders.slice(1, n + 1), Number(args.lanes));
  return {
    recipients: n,
    latencyMs: latency,
    lanes: Number(args.lanes),
    baselineSeconds: round(baseline / 1000),
    ledgerbookSeconds: round(ours.wallMs / 1000),
    speedup: round(baseline / ours.wallMs),
    ledgerbookRate: round(n / (ours.wallMs / 1000)),
  };
}

async function capacityBound(urls, minter, holders) {
  const limit = Number(args.limit);
  const windowSeconds = Number(args.window);
  const m = Number(args['capacity-recipients']);
  await http('PUT', `${urls.admin}/capacity`, { latencyMs: Number(args.latency), limit, windowSeconds });
  const node = urls.nodes[0].ledger;
  const token = await operatorToken(urls);
  const receivers = await partiesFor(urls, holders, m, 'cap');
  const before = (await http('GET', `${node}/v2/state/ledger-end`, undefined, token)).offset;
  const ours = await distribute('capacity', receivers, Number(args.lanes), ['--json']);
  const after = (await http('GET', `${node}/v2/state/ledger-end`, undefined, token)).offset;
  const times = await recordTimes(node, token, before, after, minter);
  const events = ours.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const done = events.find((e) => e.type === 'step.done' && e.step === 'pay');
  const refused = events.filter(
    (e) => e.type === 'retry' && /429|RESOURCE_EXHAUSTED|BACKPRESSURE/.test(e.error.message),
  ).length;
  // a window admits `limit` transactions: from the first to the last, the network needed at least this long
  const idealMs = (Math.ceil(times.length / limit) - 1) * windowSeconds * 1000;
  const spanMs = times[times.length - 1] - times[0];
  return {
    recipients: m,
    limit,
    windowSeconds,
    transactions: times.length,
    seconds: round(done.durationMs / 1000),
    firstToLastSeconds: round(spanMs / 1000),
    sustained: round(idealMs / spanMs),
    // transactions per second from the first one: where the time went
    perSecond: Object.values(
      times.reduce(
        (acc, t) => ({
          ...acc,
          [Math.floor((t - times[0]) / 1000)]: (acc[Math.floor((t - times[0]) / 1000)] ?? 0) + 1,
        }),
        {},
      ),
    ),
    refusedOverloaded: refused,
    offered: done.outputs.totals.offered,
    sent: done.outputs.totals.sent,
  };
}

/** `n` receivers: the world's holders (but alice), then parties allocated through the admin API. */
async function partiesFor(urls, holders, n, prefix) {
  const parties = holders.slice(1, n + 1);
  for (let i = 0; parties.length < n; i++) {
    const count = Math.min(10_000, n - parties.length);
    const body = await http('POST', `${urls.admin}/parties`, {
      node: `node${(i % 2) + 2}`,
      count,
      prefix: `${prefix}${i}`,
    });
    parties.push(...body.parties);
  }
  return parties;
}

async function memory(urls) {
  const n = Number(args.memory);
  await http('PUT', `${urls.admin}/capacity`, { latencyMs: 0, limit: null });
  const parties = await partiesFor(urls, [], n, 'mem');
  const ours = await distribute('memory', parties, 8, [], '0.0001');
  const journal = join(dir, 'state', 'bench-memory@sandbox', 'journal.ndjson');
  const bytes = (await stat(journal)).size;
  const records = (await readFile(journal, 'utf8')).split('\n').filter(Boolean).length;
  return {
    recipients: n,
    peakRssMiB: round(ours.peakRss / 1024),
    seconds: round(ours.wallMs / 1000),
    rate: round(n / (ours.wallMs / 1000)),
    journalBytesPerRecipient: round(bytes / n),
    journalRecordsPerRecipient: round(records / n),
  };
}

/** The record times of the sender's transactions between two offsets, from the ledger's updates, in ms. */
async function recordTimes(ledger, token, from, to, party) {
  const times = [];
  for (let begin = from; begin < to;) {
    const page = await http(
      'POST',
      `${ledger}/v2/updates?limit=200&stream_idle_timeout_ms=1000`,
      {
        beginExclusive: begin,
        endInclusive: to,
        updateFormat: {
          includeTransactions: {
            eventFormat: { filtersByParty: { [party]: {} }, verbose: false },
            transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
          },
        },
      },
      token,
    );
    const transactions = page.map((u) => u.update?.Transaction?.value).filter(Boolean);
    if (transactions.length === 0) break;
    for (const t of transactions) times.push(Date.parse(t.recordTime));
    begin = Math.max(...transactions.map((t) => t.offset));
  }
  return times.sort((a, b) => a - b);
}

/** Runs a distribution through the CLI; wall time, output and peak RSS (VmHWM) of the process. */
async function distribute(name, receivers, lanes, extra = [], amount = '0.001') {
  const csv = join(dir, `${name}.csv`);
  await writeFile(csv, `receiver,amount\n${receivers.map((r) => `${r},${amount}`).join('\n')}\n`);
  const playbook = join(dir, `${name}.yaml`);
  await writeFile(
    playbook,
    `name: bench-${name}\nsteps:\n  - id: pay\n    uses: token.distribute\n    concurrency: ${lanes}\n    with:\n      sender: minter\n      recipients: ${csv}\n`,
  );
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [CLI, 'run', playbook, '--target', join(dir, 'target.yaml'), '--state-dir', join(dir, 'state'), ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: 'true' } },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  let peakRss = 0;
  const poll = setInterval(() => {
    readFile(`/proc/${child.pid}/status`, 'utf8')
      .then((text) => {
        const hwm = Number(/VmHWM:\s+(\d+)/.exec(text)?.[1] ?? 0);
        peakRss = Math.max(peakRss, hwm);
      })
      .catch(() => undefined);
  }, 100);
  const code = await new Promise((resolve) => child.once('exit', resolve));
  clearInterval(poll);
  if (code !== 0) throw new Error(`the ${name} distribution exited ${code}:\n${err}\n${out.slice(-2000)}`);
  return { wallMs: performance.now() - started, stdout: out, peakRss };
}

/** One transfer at a time, each spending the last one's change: the vendor SDK's chained distribution. */
async function sequentialBaseline(urls, world, minter, receivers) {
  const token = await operatorToken(urls);
  const ledger = urls.nodes[0].ledger;
  const admin = world.admin.party;
  const instrumentId = { admin, id: 'CBTC' };
  const registry = `${urls.registry}/api/token-standard/v0/registrars/${admin}/registry`;
  const end = (await http('GET', `${ledger}/v2/state/ledger-end`, undefined, token)).offset;
  const acs = await http(
    'POST',
    `${ledger}/v2/state/active-contracts`,
    {
      activeAtOffset: end,
      eventFormat: {
        verbose: false,
        filtersByParty: {
          [minter]: {
            cumulative: [
              {
                identifierFilter: {
                  InterfaceFilter: {
                    value: {
                      interfaceId: HOLDING,
                      includeInterfaceView: true,
                      includeCreatedEventBlob: false,
                    },
                  },
                },
              },
            ],
          },
        },
      },
    },
    token,
  );
  let inputs = acs
    .map((e) => e.contractEntry.JsActiveContract.createdEvent)
    .filter(
      (ev) =>
        ev.interfaceViews[0].viewValue.lock === null &&
        ev.interfaceViews[0].viewValue.instrumentId.admin === admin,
    )
    .map((ev) => ev.contractId);
  const now = Date.now();
  const transfer = (receiver) => ({
    sender: minter,
    receiver,
    amount: '0.001',
    instrumentId,
    requestedAt: new Date(Date.now() - 1000).toISOString(),
    executeBefore: new Date(now + 7 * 86_400_000).toISOString(),
    inputHoldingCids: inputs,
    meta: { values: {} },
  });
  const started = performance.now();
  const factory = await http('POST', `${registry}/transfer-instruction/v1/transfer-factory`, {
    choiceArguments: {
      expectedAdmin: admin,
      transfer: transfer(receivers[0]),
      extraArgs: { context: { values: {} }, meta: { values: {} } },
    },
    excludeDebugFields: true,
  });
  for (const receiver of receivers) {
    const body = await http(
      'POST',
      `${ledger}${SUBMIT}`,
      {
        commands: {
          actAs: [minter],
          commandId: randomUUID(),
          disclosedContracts: factory.choiceContext.disclosedContracts,
          commands: [
            {
              ExerciseCommand: {
                templateId: TRANSFER_FACTORY,
                contractId: factory.factoryId,
                choice: 'TransferFactory_Transfer',
                choiceArgument: {
                  expectedAdmin: admin,
                  transfer: transfer(receiver),
                  extraArgs: { context: factory.choiceContext.choiceContextData, meta: { values: {} } },
                },
              },
            },
          ],
        },
        transactionFormat: {
          eventFormat: { filtersByParty: { [minter]: {} }, verbose: true },
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        },
      },
      token,
    );
    const root = body.transaction.events.find((e) => e.ExercisedEvent)?.ExercisedEvent;
    inputs = root.exerciseResult.senderChangeCids;
  }
  return performance.now() - started;
}

async function operatorToken(urls) {
  const password = (await readFile(join(dir, 'sandbox', 'secrets', 'operator-password'), 'utf8')).trim();
  const response = await fetch(urls.idp.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'password',
      client_id: 'ledgerbook-cli',
      username: 'operator1',
      password,
    }),
  });
  return (await response.json()).access_token;
}

async function http(method, url, body, token) {
  const response = await fetch(url, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url} → ${response.status}: ${text.slice(0, 500)}`);
  return text === '' ? undefined : JSON.parse(text);
}

function round(x) {
  return Math.round(x * 100) / 100;
}

function report(r) {
  const lines = [];
  if (r.latency) {
    const l = r.latency;
    lines.push(
      `latency-bound: ${l.recipients} recipients, ${l.latencyMs} ms per submission, ${l.lanes} lanes`,
      `  sequential baseline ${l.baselineSeconds} s, ledgerbook ${l.ledgerbookSeconds} s (${l.ledgerbookRate}/s): ${l.speedup}× (target ≥ 5×)`,
    );
  }
  if (r.capacity) {
    const c = r.capacity;
    lines.push(
      `capacity-bound: ${c.limit} transactions per ${c.windowSeconds} s, ${c.recipients} recipients, ${c.transactions} transactions (first to last ${c.firstToLastSeconds} s; the step ${c.seconds} s)`,
      `  sustained ${Math.round(c.sustained * 100)} % of the capacity (target ≥ 95 %), ${c.refusedOverloaded} submissions refused as overloaded (PARTICIPANT_BACKPRESSURE) and retried, ${c.sent} sent, ${c.offered} offered`,
    );
  }
  if (r.memory) {
    const m = r.memory;
    lines.push(
      `memory: ${m.recipients} recipients, peak RSS ${m.peakRssMiB} MiB (target < 200), ${m.seconds} s (${m.rate}/s)`,
      `  journal: ${m.journalBytesPerRecipient} bytes and ${m.journalRecordsPerRecipient} records per recipient`,
    );
  }
  return `${lines.join('\n')}\n`;
}

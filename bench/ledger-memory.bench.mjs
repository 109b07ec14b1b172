/**
 * The sandbox ledger's memory with many active holdings: a ledger with the sandbox world, then N holdings (default
 * 100,000) created in transactions of 1,000 spread over the 600 holders, measured after a full GC (heap used and
 * resident set, per holding). Then the costs that grow with it: an interface-filtered active-contracts read of one
 * holder (what a wallet's balance does), of the whole instrument admin (every holding), and starting the ledger
 * again from its state dir (snapshot + log replay).
 *
 *   node bench/ledger-memory.bench.mjs [--holdings 100000] [--json]
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process, { stdout } from 'node:process';
import { parseArgs } from 'node:util';
import { importTs } from '../scripts/import-ts.mjs';

if (typeof globalThis.gc !== 'function') {
  execFileSync(process.execPath, ['--expose-gc', ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(0);
}

const { values: args } = parseArgs({
  options: { holdings: { type: 'string', default: '100000' }, json: { type: 'boolean', default: false } },
});
const HOLDINGS = Number(args.holdings);
const PER_TX = 1000;

const m = await importTs(new URL('./support/sandbox-ledger.ts', import.meta.url).pathname);
const dir = await mkdtemp(join(tmpdir(), 'lb-bench-memory-'));

const measure = () => {
  globalThis.gc();
  globalThis.gc();
  const u = process.memoryUsage();
  return { heap: u.heapUsed, rss: u.rss };
};

function openLedger() {
  const canton = new m.Synchronizer(dir);
  const nodes = [0, 1, 2].map((i) => {
    const id = m.nodeIdentity(i);
    return {
      name: id.name,
      participantId: id.participantId,
      operatorUser: `op${i}`,
      ciUser: 'ci',
      viewerUser: 'viewer',
    };
  });
  for (const n of nodes) canton.installPackages(n.participantId, m.TOKEN_PACKAGES);
  const ledger = new m.Ledger({
    stateDir: dir,
    catalog: m.tokenCatalog(),
    synchronizerId: 'global-domain::1220bench',
    topology: { decentralizedHosting: () => undefined, decentralizedParties: () => [] },
    // no notes are written here; the chain's extension is not needed
  });
  return { ledger, nodes, canton };
}

try {
  const { ledger, nodes } = openLedger();
  ledger.open();
  const world = m.describeWorld(nodes);
  await m.ensureWorld(ledger, nodes, world);
  const base = measure();
  const registrar = { operator: world.operator, provider: world.admin, registrar: world.admin };
  const created = performance.now();
  for (let t = 0; t * PER_TX < HOLDINGS; t++) {
    const owners = new Set();
    const commands = [];
    for (let i = 0; i < PER_TX && t * PER_TX + i < HOLDINGS; i++) {
      const owner = world.holders[(t * PER_TX + i) % world.holders.length];
      owners.add(owner);
      commands.push({
        kind: 'create',
        template: m.Holding,
        arg: m.holdingArg(registrar, owner, world.instrument, '0.0010000000'),
      });
    }
    await ledger.submit({
      participant: nodes[1].participantId,
      userId: 'bench',
      actAs: [world.admin, ...owners],
      commandId: `bench-${t}`,
      commands,
      internal: true,
    });
  }
  const createMs = performance.now() - created;
  const full = measure();
  const holder = world.holders[5];
  const formatFor = (party) =>
    m.parseEventFormat(
      {
        filtersByParty: {
          [party]: {
            cumulative: [
              {
                identifierFilter: {
                  InterfaceFilter: {
                    value: {
                      interfaceId: '#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding',
                      includeInterfaceView: true,
                      includeCreatedEventBlob: true,
                    },
                  },
                },
              },
            ],
          },
        },
      },
      m.resolverFor(
        ledger.catalog,
        () => new Set(),
        () => new Set(),
      ),
    );
  const encoder = { catalog: ledger.catalog, synchronizerId: ledger.synchronizerId, profile: '3.5' };
  const read = (party) => {
    const format = formatFor(party);
    const t0 = performance.now();
    let bytes = 0;
    let count = 0;
    for (const c of ledger.activeAt(ledger.end, [party])) {
      const selection = m.select(format, c.template, [
        ...c.template.signatories(c.arg),
        ...c.template.observers(c.arg),
      ]);
      if (selection === undefined) continue;
      bytes += JSON.stringify(m.activeContractEntry(encoder, c, selection)).length;
      count++;
    }
    return { count, ms: performance.now() - t0, mib: bytes / 1048576 };
  };
  const one = read(holder);
  const all = read(world.admin);
  ledger.close();
  const reopened = performance.now();
  const again = openLedger();
  again.ledger.open();
  const reopenMs = performance.now() - reopened;
  const report = {
    holdings: HOLDINGS,
    activeContracts: again.ledger.activeCount(),
    createSeconds: Number((createMs / 1000).toFixed(2)),
    heapMiB: Math.round((full.heap - base.heap) / 1048576),
    rssMiB: Math.round(full.rss / 1048576),
    bytesPerHolding: Math.round((full.heap - base.heap) / HOLDINGS),
    holderRead: { contracts: one.count, ms: Number(one.ms.toFixed(1)) },
    adminRead: { contracts: all.count, ms: Math.round(all.ms), mib: Number(all.mib.toFixed(1)) },
    reopenMs: Math.round(reopenMs),
  };
  again.ledger.close();
  if (args.json) stdout.write(`${JSON.stringify(report)}\n`);
  else {
    stdout.write(
      `${HOLDINGS} holdings created in ${report.createSeconds} s; ${report.activeContracts} active contracts after a restart\n`,
    );
    stdout.write(
      `heap +${report.heapMiB} MiB (${report.bytesPerHolding} bytes per holding), process RSS ${report.rssMiB} MiB\n`,
    );
    stdout.write(
      `read of one holder (${one.count} holdings, views + blobs): ${report.holderRead.ms} ms; of the admin (${all.count}): ${report.adminRead.ms} ms, ${report.adminRead.mib} MiB of JSON\n`,
    );
    stdout.write(`restart of the ledger from its state dir: ${report.reopenMs} ms\n`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

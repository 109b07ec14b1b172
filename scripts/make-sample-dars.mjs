#!/usr/bin/env node
/**
 * Writes the sample DARs the sandbox and the shipped playbooks use to playbooks/dars/. They are small zips laid
 * out like a DAR built by damlc (a JAR manifest plus one .dalf per package), but each .dalf holds the sandbox's
 * stand-in for Daml-LF (see src/dar/dalf.ts): JSON naming the package and its templates, whose sha256 is the
 * package id. Bytes are deterministic (fixed entry order, fixed mtime), so running this again changes nothing.
 *
 *   node scripts/make-sample-dars.mjs
 */
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { stdout } from 'node:process';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';

const FORMAT = 'ledgerbook-sample-dalf/1';
const SDK_VERSION = '3.3.0';
/** DOS timestamps are local time; building the date from local fields keeps the bytes independent of TZ. */
const MTIME = new Date(2025, 0, 1, 0, 0, 0);

const SAMPLES = [
  {
    name: 'governance-core',
    version: '0.2.0',
    main: {
      templates: [
        'Governance.Rules:GovernanceRules',
        'Governance.Confirmation:Confirmation',
        'Governance.Proposal:DomainProposal',
      ],
    },
    dependencies: [],
  },
  {
    name: 'wrapped',
    version: '1.2.1',
    main: {
      templates: [
        'CBTC.DepositAccount:CBTCDepositAccount',
        'CBTC.DepositAccount:CBTCDepositAccountRules',
        'CBTC.WithdrawAccount:CBTCWithdrawAccount',
        'CBTC.WithdrawAccount:CBTCWithdrawAccountRules',
        'CBTC.WithdrawRequest:CBTCWithdrawRequest',
      ],
    },
    dependencies: [{ name: 'wrapped-holding', version: '1.0.0', templates: ['Holding:Holding'] }],
  },
  {
    name: 'utility-registry-app',
    version: '0.0.1',
    main: {
      templates: [
        'Utility.Registry.App.V0.Configuration.Instrument:InstrumentConfiguration',
        'Utility.Registry.App.V0.Service.AllocationFactory:AllocationFactory',
      ],
    },
    dependencies: [],
  },
];

function sha256(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

function dalf(name, version, templates) {
  const bytes = Buffer.from(JSON.stringify({ format: FORMAT, name, version, templates }) + '\n', 'utf8');
  return { bytes, packageId: sha256(bytes), name, version };
}

/** JAR manifest lines are at most 72 bytes; longer values continue on lines starting with one space. */
function manifest(fields) {
  const lines = [];
  for (const [key, value] of fields) {
    let rest = `${key}: ${value}`;
    lines.push(rest.slice(0, 72));
    rest = rest.slice(72);
    while (rest.length > 0) {
      lines.push(` ${rest.slice(0, 71)}`);
      rest = rest.slice(71);
    }
  }
  return Buffer.from(lines.join('\r\n') + '\r\n', 'utf8');
}

function buildDar(sample) {
  const main = dalf(sample.name, sample.version, sample.main.templates);
  const deps = sample.dependencies.map((d) => dalf(d.name, d.version, d.templates));
  const dir = `${sample.name}-${sample.version}-${main.packageId}`;
  const pathOf = (p) => `${dir}/${p.name}-${p.version}-${p.packageId}.dalf`;
  const dalfs = [main, ...deps];
  const files = {
    'META-INF/MANIFEST.MF': manifest([
      ['Manifest-Version', '1.0'],
      ['Created-By', 'ledgerbook scripts/make-sample-dars.mjs'],
      ['Name', `${sample.name}-${sample.version}`],
      ['Sdk-Version', SDK_VERSION],
      ['Main-Dalf', pathOf(main)],
      ['Dalfs', dalfs.map(pathOf).join(', ')],
      ['Format', 'daml-lf'],
      ['Encryption', 'non-encrypted'],
    ]),
  };
  for (const p of dalfs) files[pathOf(p)] = p.bytes;
  const entries = Object.fromEntries(
    Object.entries(files).map(([path, bytes]) => [path, [bytes, { mtime: MTIME }]]),
  );
  return { bytes: zipSync(entries, { level: 9, mtime: MTIME }), packages: dalfs };
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'playbooks', 'dars');
mkdirSync(outDir, { recursive: true });
for (const sample of SAMPLES) {
  const { bytes, packages } = buildDar(sample);
  const file = join(outDir, `${sample.name}-${sample.version}.dar`);
  writeFileSync(file, bytes);
  stdout.write(`${file.slice(root.length + 1)}  sha256 ${sha256(bytes)}\n`);
  for (const p of packages) stdout.write(`  ${p.name} ${p.version}  ${p.packageId}\n`);
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ExpectedListError,
  builtInList,
  builtInNames,
  compareInstalled,
  formatReport,
  parseExpectedList,
} from './expected-list.js';
import { EXPECTED_PACKAGE_LISTS } from './expected-packages.js';

const fixtures = join(import.meta.dirname, '../../../test/fixtures/specs/wrapped');
const fixture = (name: string): unknown => JSON.parse(readFileSync(join(fixtures, name), 'utf8'));

const CBTC_120 = 'f240dd5d1a98079f37c0f93272cf5b28d4523027c42d0003c4c7a530eed6c313';
const CBTC_111 = 'e0b1ae1cf5bb4bcff668df849c397d551065cfc0563a69c6b106a639f4f43b2c';

describe('the lists shipped with ledgerbook', () => {
  it('are the published files, unchanged', () => {
    expect(EXPECTED_PACKAGE_LISTS['cbtc-lib-0.3.1']).toEqual(fixture('expected_packages.json'));
    expect(EXPECTED_PACKAGE_LISTS['cbtc-lib-0.6.3']).toEqual(fixture('expected_packages.head-derived.json'));
    expect(builtInNames()).toEqual(['cbtc-lib-0.3.1', 'cbtc-lib-0.6.3']);
  });

  it('read as 21 packages each, cbtc 1.1.1 in the old one and 1.2.0 in the current one', () => {
    const old = builtInList('cbtc-lib-0.3.1');
    const current = builtInList('cbtc-lib-0.6.3');
    expect(old?.packages).toHaveLength(21);
    expect(current?.packages).toHaveLength(21);
    expect(old?.packages.find((p) => p.name === 'cbtc')).toEqual({
      package_id: CBTC_111,
      name: 'cbtc',
      version: '1.1.1',
    });
    expect(current?.packages.find((p) => p.name === 'cbtc')?.version).toBe('1.2.0');
    expect(builtInList('cbtc-lib-9')).toBeUndefined();
  });
});

describe('parseExpectedList', () => {
  it('reads the SDK manifest format and the list format alike', () => {
    const manifest = parseExpectedList(
      { cbtc_lib_version: 'x', packages: { [CBTC_120]: { name: 'cbtc', version: '1.2.0' } } },
      'm',
    );
    const list = parseExpectedList([{ package_id: CBTC_120, name: 'cbtc', version: '1.2.0' }], 'l');
    expect(manifest.packages).toEqual(list.packages);
  });

  it.each([
    [{ packages: { nothex: { name: 'a', version: '1' } } }, '/packages/nothex', 'not a package id'],
    [{ packages: { [CBTC_120]: { version: '1' } } }, `/packages/${CBTC_120}/name`, 'name'],
    [[{ package_id: CBTC_120, name: 'cbtc' }], '/0/version', 'version'],
    [[{ name: 'cbtc' }], '/0', 'package_id'],
    [{ cbtc_lib_version: '1' }, '', 'SDK manifest'],
    [{ packages: {} }, '', 'no package'],
  ])('refuses %j at %s', (value, at, message) => {
    let error: unknown;
    try {
      parseExpectedList(value, 'f');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ExpectedListError);
    expect((error as ExpectedListError).at).toBe(at);
    expect((error as ExpectedListError).message).toContain(message);
  });
});

describe('compareInstalled', () => {
  it('finds by exact package id, and names another release of a missing package the node has', () => {
    const expected = builtInList('cbtc-lib-0.6.3')?.packages ?? [];
    const installed = new Set(expected.map((p) => p.package_id).filter((id) => id !== CBTC_120));
    installed.add(CBTC_111);
    const report = compareInstalled('node2', expected, installed);
    expect(report.found).toHaveLength(20);
    expect(report.missing).toEqual([
      {
        package_id: CBTC_120,
        name: 'cbtc',
        version: '1.2.0',
        installed: [`1.1.1 (${CBTC_111.slice(0, 12)}…)`],
      },
    ]);
    const text = formatReport('cbtc-lib-0.6.3', expected.length, [report]);
    expect(text).toContain('node2: 20 found, 1 missing');
    expect(text).toContain('missing cbtc 1.2.0 (f240dd5d1a98…); installed instead: 1.1.1');
  });
});

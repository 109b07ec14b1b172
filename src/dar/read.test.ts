import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { LedgerbookError } from '../errors.js';
import { readDar, splitNameVersion } from './read.js';

const darsDir = join(import.meta.dirname, '../../playbooks/dars');
const sample = (file: string): Uint8Array => readFileSync(join(darsDir, file));
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

function zip(files: Record<string, Uint8Array | string>): Uint8Array {
  return zipSync(
    Object.fromEntries(Object.entries(files).map(([k, v]) => [k, typeof v === 'string' ? strToU8(v) : v])),
  );
}

function manifest(main: string, dalfs: string[], name = 'demo-1.0.0'): string {
  return `Manifest-Version: 1.0\r\nName: ${name}\r\nMain-Dalf: ${main}\r\nDalfs: ${dalfs.join(', ')}\r\n`;
}

function sampleDalf(
  name: string,
  version: string,
  templates: string[] = [],
): { bytes: Uint8Array; id: string } {
  const bytes = strToU8(JSON.stringify({ format: 'ledgerbook-sample-dalf/1', name, version, templates }));
  return { bytes, id: sha256(bytes) };
}

function expectDarError(bytes: Uint8Array, pattern: RegExp): void {
  try {
    readDar(bytes, 'x.dar');
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerbookError);
    expect((error as LedgerbookError).code).toBe('LB_INPUT_INVALID');
    expect((error as Error).message).toMatch(pattern);
    return;
  }
  expect.fail('readDar accepted a bad archive');
}

describe('readDar on the sample DARs', () => {
  it('reads governance-core with its GovernanceRules template and a content-proven package id', () => {
    const bytes = sample('governance-core-0.2.0.dar');
    const info = readDar(bytes);
    expect(info.name).toBe('governance-core');
    expect(info.version).toBe('0.2.0');
    expect(info.packages).toHaveLength(1);
    const [main] = info.packages;
    expect(main?.packageId).toBe(info.mainPackageId);
    expect(main?.templates).toContain('Governance.Rules:GovernanceRules');
    const entries = unzipSync(bytes);
    expect(sha256(entries[main?.path ?? ''] ?? new Uint8Array())).toBe(info.mainPackageId);
  });

  it('reads wrapped with the main package first and its dependency after it (manifest lines wrapped at 72 bytes)', () => {
    const info = readDar(sample('wrapped-1.2.1.dar'));
    expect(info).toMatchObject({ name: 'wrapped', version: '1.2.1' });
    expect(info.packages.map((p) => [p.name, p.version])).toEqual([
      ['wrapped', '1.2.1'],
      ['wrapped-holding', '1.0.0'],
    ]);
    expect(info.packages[0]?.packageId).toBe(info.mainPackageId);
    expect(new Set(info.packages.map((p) => p.packageId)).size).toBe(2);
  });

  it('reads utility-registry-app, whose name has dashes before the version', () => {
    expect(readDar(sample('utility-registry-app-0.0.1.dar'))).toMatchObject({
      name: 'utility-registry-app',
      version: '0.0.1',
    });
  });
});

describe('readDar on bad archives', () => {
  const good = sampleDalf('demo', '1.0.0', ['Main:T']);
  const goodPath = `demo-1.0.0-${good.id}/demo-1.0.0-${good.id}.dalf`;

  it('accepts a hand-made archive (control for the cases below)', () => {
    const info = readDar(
      zip({ 'META-INF/MANIFEST.MF': manifest(goodPath, [goodPath]), [goodPath]: good.bytes }),
    );
    expect(info.mainPackageId).toBe(good.id);
  });

  it('names the DAR when the bytes are not a zip', () => {
    expectDarError(strToU8('hello, not a zip'), /^x\.dar: archive: not a readable zip archive/);
  });

  it('says the manifest is missing', () => {
    expectDarError(zip({ [goodPath]: good.bytes }), /META-INF\/MANIFEST\.MF: missing/);
  });

  it('says which manifest field is missing', () => {
    expectDarError(
      zip({
        'META-INF/MANIFEST.MF': 'Manifest-Version: 1.0\r\nName: demo-1.0.0\r\n',
        [goodPath]: good.bytes,
      }),
      /no "Main-Dalf:" field/,
    );
  });

  it('refuses a Name without a version', () => {
    expectDarError(
      zip({ 'META-INF/MANIFEST.MF': manifest(goodPath, [goodPath], 'demo'), [goodPath]: good.bytes }),
      /"Name: demo" does not end in a semantic version/,
    );
  });

  it('refuses a Main-Dalf that is not in Dalfs', () => {
    expectDarError(
      zip({ 'META-INF/MANIFEST.MF': manifest(goodPath, ['other.dalf']), [goodPath]: good.bytes }),
      /is not listed in "Dalfs:"/,
    );
  });

  it('names the entry that is listed but missing', () => {
    expectDarError(
      zip({ 'META-INF/MANIFEST.MF': manifest(goodPath, [goodPath]) }),
      /listed in the manifest but missing/,
    );
  });

  it('names the entry whose content does not match its package id', () => {
    const tampered = sampleDalf('demo', '1.0.1', ['Main:T']).bytes;
    expectDarError(
      zip({ 'META-INF/MANIFEST.MF': manifest(goodPath, [goodPath]), [goodPath]: tampered }),
      new RegExp(`${goodPath.replace(/\./g, '\\.')}: the content's package id [0-9a-f]{64} does not match`),
    );
  });

  it('refuses a dalf file name without a package id', () => {
    expectDarError(
      zip({ 'META-INF/MANIFEST.MF': manifest('demo.dalf', ['demo.dalf']), 'demo.dalf': good.bytes }),
      /demo\.dalf: the file name does not end in -<64 hex package id>\.dalf/,
    );
  });

  it('refuses a dalf that is neither a sample package nor a Daml-LF archive', () => {
    const junk = strToU8('\u00ff\u00ff junk');
    const id = sha256(junk);
    const path = `demo-1.0.0-${id}.dalf`;
    expectDarError(
      zip({ 'META-INF/MANIFEST.MF': manifest(path, [path]), [path]: junk }),
      /neither a Daml-LF archive/,
    );
  });
});

describe('readDar on a real Daml-LF archive envelope', () => {
  /** Archive { hash_function = 1: SHA256 (0); payload = 3; hash = 4 } encoded by hand */
  function archive(payload: Uint8Array, hash: string): Uint8Array {
    const hashBytes = strToU8(hash);
    const lengthBytes = (n: number): number[] => {
      const out: number[] = [];
      while (n > 0x7f) {
        out.push((n & 0x7f) | 0x80);
        n >>>= 7;
      }
      out.push(n);
      return out;
    };
    return Uint8Array.from([
      0x08,
      0x00,
      0x1a,
      ...lengthBytes(payload.length),
      ...payload,
      0x22,
      ...lengthBytes(hashBytes.length),
      ...hashBytes,
    ]);
  }

  it('takes the id from the hash field, checks it against the payload, and name/version from the file name', () => {
    const payload = strToU8('x'.repeat(300));
    const id = sha256(payload);
    const path = `daml-stdlib-3.3.0-${id}.dalf`;
    const info = readDar(
      zip({ 'META-INF/MANIFEST.MF': manifest(path, [path]), [path]: archive(payload, id) }),
    );
    expect(info.packages[0]).toMatchObject({
      packageId: id,
      name: 'daml-stdlib',
      version: '3.3.0',
      templates: [],
    });
  });

  it('refuses an archive whose hash field does not match its payload', () => {
    const payload = strToU8('payload');
    const wrong = sha256(strToU8('other'));
    const path = `demo-1.0.0-${wrong}.dalf`;
    expectDarError(
      zip({ 'META-INF/MANIFEST.MF': manifest(path, [path]), [path]: archive(payload, wrong) }),
      /hash field [0-9a-f]{64} does not match the sha256 of its payload/,
    );
  });
});

describe('splitNameVersion', () => {
  it.each([
    ['governance-core-0.2.0', 'governance-core', '0.2.0'],
    ['utility-registry-app-v0-0.4.0', 'utility-registry-app-v0', '0.4.0'],
    ['foo-1.0.0-rc1', 'foo', '1.0.0-rc1'],
    ['bitsafe-vault-0.0.8', 'bitsafe-vault', '0.0.8'],
  ])('%s → %s %s', (text, name, version) => {
    expect(splitNameVersion(text)).toEqual({ name, version });
  });

  it('returns undefined without a semver suffix', () => {
    expect(splitNameVersion('daml-prim')).toBeUndefined();
  });
});

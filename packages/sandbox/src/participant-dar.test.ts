import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { DarRejected, readUploadedDar } from './participant-dar.js';

const shipped = join(import.meta.dirname, '../../../playbooks/dars');
const hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** a DAR of sample packages: `packages[0]` is the main one */
function dar(packages: { name: string; version: string; templates?: string[] }[], darName = 'demo-1.0.0') {
  const files: Record<string, Uint8Array> = {};
  const paths = packages.map((p) => {
    const body = strToU8(JSON.stringify({ format: 'ledgerbook-sample-dalf/1', templates: [], ...p }));
    const path = `${darName}/${p.name}-${p.version}-${hex(body)}.dalf`;
    files[path] = body;
    return path;
  });
  files['META-INF/MANIFEST.MF'] = strToU8(
    `Manifest-Version: 1.0\nName: ${darName}\nMain-Dalf: ${paths[0]}\nDalfs: ${paths.join(', ')}\n`,
  );
  return { files, paths };
}

/** a Daml-LF Archive message: field 1 (varint), field 3 payload, field 4 its sha256 in hex */
function archive(payload: Uint8Array, hash = hex(payload)): Uint8Array {
  const field = (n: number, bytes: Uint8Array): number[] => [(n << 3) | 2, bytes.length, ...bytes];
  return new Uint8Array([0x08, 0x01, ...field(3, payload), ...field(4, strToU8(hash))]);
}

const refusal = (bytes: Uint8Array): string => {
  try {
    readUploadedDar(bytes, 'x.dar');
  } catch (error) {
    expect(error).toBeInstanceOf(DarRejected);
    return (error as Error).message;
  }
  return expect.fail('the DAR was accepted');
};

describe('readUploadedDar', () => {
  it.each(readdirSync(shipped).filter((f) => f.endsWith('.dar')))(
    'reads the shipped %s: each package id is the sha256 of its entry, the main package first',
    (file) => {
      const bytes = readFileSync(join(shipped, file));
      const read = readUploadedDar(bytes, file);
      const entries = unzipSync(bytes);
      const ids = Object.entries(entries)
        .filter(([path]) => path.endsWith('.dalf'))
        .map(([, content]) => hex(content));
      expect(read.packages.map((p) => p.packageId).sort()).toEqual(ids.sort());
      expect(read.mainPackageId).toBe(read.packages[0]?.packageId);
      expect(`${read.name}-${read.version}.dar`).toBe(file);
    },
  );

  it('reads names, versions and templates of sample packages, the main one first whatever the order of Dalfs', () => {
    const { files, paths } = dar([
      { name: 'main', version: '2.0.0', templates: ['A.B:C'] },
      { name: 'dep', version: '1.0.0-rc.1' },
    ]);
    files['META-INF/MANIFEST.MF'] = strToU8(
      `Name: demo-1.0.0\nMain-Dalf: ${paths[0]}\nDalfs: ${paths[1]},\n  ${paths[0]}\n`.replace('\n  ', '\n '),
    );
    const read = readUploadedDar(zipSync(files));
    expect(read).toMatchObject({ name: 'demo', version: '1.0.0' });
    expect(read.packages.map((p) => [p.name, p.version, p.templates])).toEqual([
      ['main', '2.0.0', ['A.B:C']],
      ['dep', '1.0.0-rc.1', []],
    ]);
  });

  it('reads a real Daml-LF archive: the id is its hash field, name and version from the file name', () => {
    const content = archive(strToU8('a payload'));
    const path = `lib-3.1.4-${hex(strToU8('a payload'))}.dalf`;
    const bytes = zipSync({
      'META-INF/MANIFEST.MF': strToU8(`Name: lib-3.1.4\nMain-Dalf: ${path}\nDalfs: ${path}\n`),
      [path]: content,
    });
    expect(readUploadedDar(bytes).packages).toEqual([
      { packageId: hex(strToU8('a payload')), name: 'lib', version: '3.1.4', templates: [] },
    ]);
  });

  it('refuses what a participant refuses, saying where', () => {
    expect(refusal(strToU8('not a zip'))).toMatch(/^x\.dar: archive: not a readable zip archive/);
    expect(refusal(zipSync({ 'a.txt': strToU8('') }))).toMatch(/META-INF\/MANIFEST\.MF: missing/);

    const unversioned = dar([{ name: 'p', version: '1.0.0' }], 'demo');
    expect(refusal(zipSync(unversioned.files))).toMatch(/does not end in a semantic version/);

    const missing = dar([{ name: 'p', version: '1.0.0' }]);
    delete missing.files[missing.paths[0] ?? ''];
    expect(refusal(zipSync(missing.files))).toMatch(/listed in the manifest but missing from the archive/);

    const renamed = dar([{ name: 'p', version: '1.0.0' }]);
    const body = renamed.files[renamed.paths[0] ?? ''] ?? new Uint8Array();
    // the same JSON with a trailing space: another sha256 than the one in its name
    renamed.files[renamed.paths[0] ?? ''] = new Uint8Array([...body, 0x20]);
    expect(refusal(zipSync(renamed.files))).toMatch(/does not match the id [0-9a-f]{64} in its file name/);

    const forged = archive(strToU8('payload'), '0'.repeat(64));
    const path = `lib-1.0.0-${'0'.repeat(64)}.dalf`;
    const forgedDar = zipSync({
      'META-INF/MANIFEST.MF': strToU8(`Name: lib-1.0.0\nMain-Dalf: ${path}\nDalfs: ${path}\n`),
      [path]: forged,
    });
    expect(refusal(forgedDar)).toMatch(/hash field 0{64} does not match the sha256 of its payload/);
  });
});

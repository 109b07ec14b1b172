import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import { describe, expect, it } from 'vitest';
import { unzip } from './zip.js';

const darsDir = join(import.meta.dirname, '../../playbooks/dars');

describe('unzip', () => {
  it('reads every shipped DAR entry for entry as the zip library of the tests does', () => {
    const dars = readdirSync(darsDir).filter((file) => file.endsWith('.dar'));
    expect(dars.length).toBeGreaterThan(0);
    for (const file of dars) {
      const bytes = readFileSync(join(darsDir, file));
      expect(unzip(bytes)).toEqual(unzipSync(bytes));
    }
  });

  it('reads stored and deflated entries, empty ones, names in UTF-8, and an archive with a comment', () => {
    const files: Zippable = {
      'META-INF/MANIFEST.MF': strToU8('Manifest-Version: 1.0\r\n'),
      'stored.txt': [strToU8('kept as it is'), { level: 0 }],
      'deflated.txt': strToU8('compressed '.repeat(1000)),
      'empty/': new Uint8Array(0),
      'ünïcode-ñame.dalf': strToU8('{}'),
    };
    const archive = zipSync(files, { comment: 'a comment at the end' });
    const read = unzip(archive);
    expect(read).toEqual(unzipSync(archive));
    expect(new TextDecoder().decode(read['deflated.txt'])).toBe('compressed '.repeat(1000));
    expect(new TextDecoder().decode(read['stored.txt'])).toBe('kept as it is');
    expect(Object.keys(read)).toContain('ünïcode-ñame.dalf');
  });

  it('refuses an entry that inflates to more than it declares, and entries that declare too much (zip bombs)', () => {
    const archive = zipSync({ 'a.dalf': strToU8('0'.repeat(100_000)) });
    const lying = new Uint8Array(archive);
    const view = new DataView(lying.buffer);
    // the uncompressed size, in the central directory's record of the one entry (after the local header and data)
    let central = lying.length - 4;
    while (view.getUint32(central, true) !== 0x02014b50) central--;
    view.setUint32(central + 24, 1000, true);
    expect(() => unzip(lying)).toThrow('a.dalf inflates to more than the 1000 bytes it declares');
    view.setUint32(central + 24, 0xfffffffe, true);
    expect(() => unzip(lying)).toThrow('declare more than 1073741824 bytes uncompressed');
  });

  it('refuses what is not a zip archive, and one cut short', () => {
    expect(() => unzip(strToU8('hello, not a zip'))).toThrow('invalid zip data');
    const archive = zipSync({ 'a.txt': strToU8('x'.repeat(5000)) });
    const end = archive.length - 22;
    const cut = new Uint8Array([...archive.subarray(0, 40), ...archive.subarray(end)]);
    expect(() => unzip(cut)).toThrow();
  });
});

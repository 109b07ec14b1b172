/**
 * The entries of a zip archive (PKWARE APPNOTE 6.3: the end of central directory record, the central directory,
 * each entry's local header), stored or deflated, with the Zip64 extensions; deflate is Node's own zlib. What a
 * DAR needs and no more: no encryption, no multi-disk archives. Written for start-up: the library it replaces built
 * its tables and loaded worker_threads on import, a cost every `validate` of a playbook naming DARs paid.
 */
import { inflateRawSync } from 'node:zlib';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const ZIP64_END_LOCATOR = 0x07064b50;
const ZIP64_END_OF_CENTRAL_DIRECTORY = 0x06064b50;
const CENTRAL_HEADER = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const ZIP64_EXTRA = 0x0001;
const STORED = 0;
const DEFLATED = 8;
/** the end record's fixed part; a comment of up to 65,535 bytes may follow it */
const END_RECORD_BYTES = 22;

/**
 * The most the entries may declare, uncompressed, together: far above any DAR, far below what a zip bomb asks for.
 * Each entry inflates to at most its declared size, so an entry that lies about it is refused, not expanded.
 */
export const MAX_UNZIPPED_BYTES = 1024 * 1024 * 1024;

/** A value the 32-bit (or 16-bit) field cannot hold: the real one is in the Zip64 record or extra field. */
const MAX_32 = 0xffffffff;
const MAX_16 = 0xffff;

/** Every file of the archive by its path; throws an Error saying what is wrong with one that cannot be read. */
export function unzip(bytes: Uint8Array): Record<string, Uint8Array> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u16 = (at: number): number => view.getUint16(at, true);
  const u32 = (at: number): number => view.getUint32(at, true);
  const u64 = (at: number): number => Number(view.getBigUint64(at, true));

  let end = bytes.length - END_RECORD_BYTES;
  const first = Math.max(0, end - MAX_16);
  while (end >= first && u32(end) !== END_OF_CENTRAL_DIRECTORY) end--;
  if (end < first) throw new Error('invalid zip data');
  let count = u16(end + 10);
  let offset = u32(end + 16);
  if ((count === MAX_16 || offset === MAX_32) && end >= 20 && u32(end - 20) === ZIP64_END_LOCATOR) {
    const record = u64(end - 12);
    if (u32(record) !== ZIP64_END_OF_CENTRAL_DIRECTORY) throw new Error('invalid zip data');
    count = u64(record + 32);
    offset = u64(record + 48);
  }

  const files: Record<string, Uint8Array> = {};
  const decoder = new TextDecoder();
  let declared = 0;
  for (let i = 0; i < count; i++) {
    if (u32(offset) !== CENTRAL_HEADER) throw new Error('invalid zip data');
    const method = u16(offset + 10);
    let compressedSize = u32(offset + 20);
    let size = u32(offset + 24);
    const nameLength = u16(offset + 28);
    const extraLength = u16(offset + 30);
    const commentLength = u16(offset + 32);
    let local = u32(offset + 42);
    const name = decoder.decode(bytes.subarray(offset + 46, offset + 46 + nameLength));
    // Zip64: the sizes and the offset that overflowed, in this order, in the extra field
    for (let at = offset + 46 + nameLength; at + 4 <= offset + 46 + nameLength + extraLength;) {
      const id = u16(at);
      const length = u16(at + 2);
      if (id === ZIP64_EXTRA) {
        let field = at + 4;
        const next = (): number => {
          const value = u64(field);
          field += 8;
          return value;
        };
        if (size === MAX_32) size = next();
        if (compressedSize === MAX_32) compressedSize = next();
        if (local === MAX_32) local = next();
      }
      at += 4 + length;
    }
    declared += size;
    if (declared > MAX_UNZIPPED_BYTES)
      throw new Error(`its entries declare more than ${MAX_UNZIPPED_BYTES} bytes uncompressed (a zip bomb?)`);
    if (u32(local) !== LOCAL_HEADER) throw new Error('invalid zip data');
    const start = local + 30 + u16(local + 26) + u16(local + 28);
    if (start + compressedSize > bytes.length) throw new Error('unexpected EOF');
    const data = bytes.subarray(start, start + compressedSize);
    // plain Uint8Arrays, like the library this replaced returned (not Buffers)
    if (method === STORED) files[name] = new Uint8Array(data);
    else if (method === DEFLATED) {
      let inflated: Buffer;
      try {
        inflated = inflateRawSync(data, { maxOutputLength: Math.max(size, 1) });
      } catch (error) {
        if ((error as { code?: string }).code !== 'ERR_BUFFER_TOO_LARGE') throw error;
        throw new Error(`${name} inflates to more than the ${size} bytes it declares`);
      }
      if (inflated.length !== size)
        throw new Error(`${name} inflates to ${inflated.length} bytes, not the ${size} it declares`);
      files[name] = new Uint8Array(inflated.buffer, inflated.byteOffset, inflated.length);
    } else throw new Error(`unknown compression type ${method}`);
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}

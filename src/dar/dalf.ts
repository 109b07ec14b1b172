/**
 * One `.dalf` entry of a DAR: a Daml-LF package. Two encodings are understood:
 *
 * - The sandbox's stand-in for Daml-LF, written by scripts/make-sample-dars.mjs: UTF-8 JSON
 *   `{ "format": "ledgerbook-sample-dalf/1", "name", "version", "templates": ["Module.Path:Entity", …] }`.
 *   Its package id is the sha256 of the entry's bytes. This replaces the real package hash (the sha256 of the
 *   serialized Daml-LF payload) so that the project can ship small DARs of its own making; the name, version and
 *   templates stand in for the package metadata and template definitions a participant reads from Daml-LF.
 * - A real Daml-LF `Archive` protobuf envelope (`hash_function = 1`, `payload = 3`, `hash = 4`): its package id is
 *   the `hash` field, checked against the sha256 of `payload`. Name, version and templates live inside the
 *   payload, which is not decoded here: the caller takes name and version from the file name.
 */
import { createHash } from 'node:crypto';

const SAMPLE_DALF_FORMAT = 'ledgerbook-sample-dalf/1';

export interface DecodedDalf {
  /** the package id the content proves */
  packageId: string;
  /** from the stand-in payload; undefined for a real Daml-LF archive */
  metadata?: { name: string; version: string; templates: string[] };
}

export type DalfResult = { ok: true; dalf: DecodedDalf } | { ok: false; message: string };

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function decodeDalf(bytes: Uint8Array): DalfResult {
  if (bytes.length === 0) return { ok: false, message: 'the entry is empty' };
  if (bytes[0] === 0x7b /* '{' */) return decodeSample(bytes);
  return decodeArchive(bytes);
}

function decodeSample(bytes: Uint8Array): DalfResult {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (error) {
    return { ok: false, message: `the sample payload is not valid JSON (${(error as Error).message})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: 'the sample payload is not a JSON object' };
  }
  const record = value as Record<string, unknown>;
  if (record.format !== SAMPLE_DALF_FORMAT) {
    return { ok: false, message: `the sample payload's "format" is not "${SAMPLE_DALF_FORMAT}"` };
  }
  const { name, version, templates } = record;
  if (typeof name !== 'string' || name === '')
    return { ok: false, message: 'the sample payload has no "name"' };
  if (typeof version !== 'string' || version === '') {
    return { ok: false, message: 'the sample payload has no "version"' };
  }
  if (
    !Array.isArray(templates) ||
    !templates.every((t) => typeof t === 'string' && /^[^:]+:[^:]+$/.test(t))
  ) {
    return {
      ok: false,
      message: 'the sample payload\'s "templates" must be a list of "Module.Path:Entity" strings',
    };
  }
  return {
    ok: true,
    dalf: { packageId: sha256Hex(bytes), metadata: { name, version, templates: templates as string[] } },
  };
}

/** Reads the three fields of the Daml-LF `Archive` message that matter here; unknown fields are skipped. */
function decodeArchive(bytes: Uint8Array): DalfResult {
  let offset = 0;
  let payload: Uint8Array | undefined;
  let hash: string | undefined;
  const readVarint = (): number | undefined => {
    let result = 0;
    let shift = 0;
    while (offset < bytes.length && shift < 50) {
      const byte = bytes[offset++] ?? 0;
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
    }
    return undefined;
  };
  while (offset < bytes.length) {
    const tag = readVarint();
    if (tag === undefined) return notAnArchive('a truncated field tag');
    const field = Math.floor(tag / 8);
    const wireType = tag % 8;
    if (wireType === 0) {
      if (readVarint() === undefined) return notAnArchive('a truncated number');
    } else if (wireType === 2) {
      const length = readVarint();
      if (length === undefined || offset + length > bytes.length) return notAnArchive('a truncated field');
      const value = bytes.subarray(offset, offset + length);
      offset += length;
      if (field === 3) payload = value;
      if (field === 4) hash = Buffer.from(value).toString('utf8');
    } else if (wireType === 1) {
      offset += 8;
    } else if (wireType === 5) {
      offset += 4;
    } else {
      return notAnArchive(`an unsupported protobuf wire type ${wireType}`);
    }
  }
  if (payload === undefined || hash === undefined) return notAnArchive('no payload or no hash field');
  const actual = sha256Hex(payload);
  if (actual !== hash) {
    return {
      ok: false,
      message: `the archive's hash field ${hash} does not match the sha256 of its payload ${actual}`,
    };
  }
  return { ok: true, dalf: { packageId: hash } };
}

function notAnArchive(what: string): DalfResult {
  return {
    ok: false,
    message: `neither a Daml-LF archive nor a ledgerbook sample package (${what})`,
  };
}

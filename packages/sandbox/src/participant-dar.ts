/**
 * What a participant makes of an uploaded DAR (Admin API UploadDar), read by the sandbox itself: the sandbox
 * plays the participant, so it does not borrow the CLI's reader — a package id computed by the CLI's own code
 * would agree with the CLI's bugs.
 *
 * A DAR is a zip. Its JAR manifest (`META-INF/MANIFEST.MF`: `Key: value` lines, long values continued on lines
 * that start with one space) names the DAR (`Name: <name>-<semver>`), its main package (`Main-Dalf:`) and every
 * package it carries (`Dalfs:`, comma separated). Each `.dalf` is one package whose file name ends in
 * `-<package id>.dalf`; the content must prove that id:
 *
 * - a Daml-LF `Archive` protobuf message: field 3 the payload, field 4 the hash (hex) = sha256 of the payload;
 * - the project's sample packages (playbooks/dars, scripts/make-sample-dars.mjs): UTF-8 JSON of format
 *   `ledgerbook-sample-dalf/1` with name, version and templates; the id is the sha256 of the entry.
 */
import { createHash } from 'node:crypto';
import { unzipSync } from 'fflate';

export interface UploadedPackage {
  packageId: string;
  name: string;
  version: string;
  /** `Module.Path:Entity`; empty for a real Daml-LF package (its payload is not decoded) */
  templates: string[];
}

export interface UploadedDar {
  name: string;
  version: string;
  mainPackageId: string;
  /** the main package first, then the others in `Dalfs:` order */
  packages: UploadedPackage[];
}

/** why a participant refuses the DAR (the text follows "Dar file is corrupt: ") */
export class DarRejected extends Error {
  constructor(source: string, where: string, what: string) {
    super(`${source}: ${where}: ${what}`);
    this.name = 'DarRejected';
  }
}

const MANIFEST_PATH = 'META-INF/MANIFEST.MF';
const SAMPLE_FORMAT = 'ledgerbook-sample-dalf/1';
const ARCHIVE_PAYLOAD_FIELD = 3;
const ARCHIVE_HASH_FIELD = 4;
const SEMANTIC_VERSION =
  /^\d+\.\d+\.\d+(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
const NO_LEADING_ZERO = /(^|[.-])0\d/;

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Reads an uploaded DAR as a participant does; throws DarRejected when the participant would refuse it. */
export function readUploadedDar(bytes: Uint8Array, source = 'DAR'): UploadedDar {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes);
  } catch (error) {
    throw new DarRejected(source, 'archive', `not a readable zip archive (${(error as Error).message})`);
  }
  const manifestBytes = files[MANIFEST_PATH];
  if (manifestBytes === undefined) {
    throw new DarRejected(source, MANIFEST_PATH, 'missing: a DAR must carry a JAR manifest');
  }
  const manifest = manifestFields(source, new TextDecoder().decode(manifestBytes));
  const required = (key: string): string => {
    const value = manifest.get(key)?.trim();
    if (!value) throw new DarRejected(source, MANIFEST_PATH, `no "${key}:" field`);
    return value;
  };
  const darName = nameAndVersion(required('Name'));
  if (darName === undefined) {
    throw new DarRejected(
      source,
      MANIFEST_PATH,
      `"Name: ${required('Name')}" does not end in a semantic version (name-1.2.3)`,
    );
  }
  const main = required('Main-Dalf');
  const listed = required('Dalfs')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (!listed.includes(main)) {
    throw new DarRejected(source, MANIFEST_PATH, `"Main-Dalf: ${main}" is not listed in "Dalfs:"`);
  }
  if (new Set(listed).size < listed.length) {
    throw new DarRejected(source, MANIFEST_PATH, '"Dalfs:" lists an entry twice');
  }
  const order = [main, ...listed.filter((entry) => entry !== main)];
  const packages = order.map((entry) => packageOf(source, entry, files[entry]));
  return { ...darName, mainPackageId: packages[0]?.packageId ?? '', packages };
}

function packageOf(source: string, entry: string, content: Uint8Array | undefined): UploadedPackage {
  if (content === undefined) {
    throw new DarRejected(source, entry, 'listed in the manifest but missing from the archive');
  }
  const fileName = entry.split('/').pop() ?? entry;
  const idInName = /^(.*)-([0-9a-f]{64})\.dalf$/.exec(fileName);
  if (idInName === null) {
    throw new DarRejected(source, entry, 'the file name does not end in -<64 hex package id>.dalf');
  }
  const [, stem = '', packageId = ''] = idInName;
  const proven =
    content[0] === 0x7b ? samplePackage(source, entry, content) : archivePackage(source, entry, content);
  if (proven.packageId !== packageId) {
    throw new DarRejected(
      source,
      entry,
      `the content's package id ${proven.packageId} does not match the id ${packageId} in its file name`,
    );
  }
  // a real archive's name and version are inside its payload: the file name carries them too
  const named = proven.metadata ?? {
    ...(nameAndVersion(stem) ?? { name: stem, version: '' }),
    templates: [],
  };
  return { packageId, ...named };
}

type Proven = { packageId: string; metadata?: { name: string; version: string; templates: string[] } };

function samplePackage(source: string, entry: string, content: Uint8Array): Proven {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(content));
  } catch (error) {
    throw new DarRejected(
      source,
      entry,
      `the sample payload is not valid JSON (${(error as Error).message})`,
    );
  }
  const sample = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const { format, name, version, templates } = sample;
  const problem =
    format !== SAMPLE_FORMAT
      ? `the sample payload's "format" is not "${SAMPLE_FORMAT}"`
      : typeof name !== 'string' || name.length === 0
        ? 'the sample payload has no "name"'
        : typeof version !== 'string' || version.length === 0
          ? 'the sample payload has no "version"'
          : !Array.isArray(templates) ||
              templates.some((t) => typeof t !== 'string' || t.split(':').length !== 2 || t.includes('::'))
            ? 'the sample payload\'s "templates" must be a list of "Module.Path:Entity" strings'
            : undefined;
  if (problem !== undefined) throw new DarRejected(source, entry, problem);
  return {
    packageId: sha256(content),
    metadata: { name: name as string, version: version as string, templates: templates as string[] },
  };
}

/** the payload (field 3) and hash (field 4) of a Daml-LF Archive; other fields are skipped */
function archivePackage(source: string, entry: string, content: Uint8Array): Proven {
  const refuse = (what: string): never => {
    throw new DarRejected(
      source,
      entry,
      `neither a Daml-LF archive nor a ledgerbook sample package (${what})`,
    );
  };
  let at = 0;
  const varint = (): number => {
    let value = 0;
    for (let factor = 1; at < content.length && factor < 2 ** 49; factor *= 128) {
      const byte = content[at++] as number;
      value += (byte & 0x7f) * factor;
      if (byte < 0x80) return value;
    }
    return refuse('a truncated varint');
  };
  const fields = new Map<number, Uint8Array>();
  while (at < content.length) {
    const key = varint();
    const field = Math.floor(key / 8);
    switch (key % 8) {
      case 0:
        varint();
        break;
      case 1:
        at += 8;
        break;
      case 5:
        at += 4;
        break;
      case 2: {
        const length = varint();
        if (at + length > content.length) refuse('a length-delimited field past the end');
        fields.set(field, content.subarray(at, at + length));
        at += length;
        break;
      }
      default:
        refuse(`an unsupported protobuf wire type ${key % 8}`);
    }
  }
  const payload = fields.get(ARCHIVE_PAYLOAD_FIELD);
  const hash = fields.get(ARCHIVE_HASH_FIELD);
  if (payload === undefined || hash === undefined) return refuse('no payload or no hash field');
  const claimed = new TextDecoder().decode(hash);
  const actual = sha256(payload);
  if (claimed !== actual) {
    throw new DarRejected(
      source,
      entry,
      `the archive's hash field ${claimed} does not match the sha256 of its payload ${actual}`,
    );
  }
  return { packageId: claimed };
}

/** the manifest's main section, continuation lines joined */
function manifestFields(source: string, text: string): Map<string, string> {
  const fields = new Map<string, string>();
  let previous: string | undefined;
  const lines = text.split(/\r\n|\r|\n/);
  for (const [index, line] of lines.entries()) {
    if (line.length === 0) {
      if (fields.size === 0) continue;
      break;
    }
    const where = `${MANIFEST_PATH} line ${index + 1}`;
    if (line[0] === ' ') {
      if (previous === undefined)
        throw new DarRejected(source, where, 'continuation line without a preceding field');
      fields.set(previous, `${fields.get(previous) ?? ''}${line.slice(1)}`);
      continue;
    }
    const separator = line.indexOf(': ');
    if (separator < 1) {
      const shown = line.length > 40 ? `${line.slice(0, 40)}…` : line;
      throw new DarRejected(source, where, `expected "Name: value", got "${shown}"`);
    }
    previous = line.slice(0, separator);
    fields.set(previous, line.slice(separator + 2));
  }
  return fields;
}

/** `governance-core-0.2.0` → governance-core and 0.2.0: the shortest name whose rest is a semantic version */
function nameAndVersion(text: string): { name: string; version: string } | undefined {
  const parts = text.split('-');
  for (let cut = 1; cut < parts.length; cut++) {
    const name = parts.slice(0, cut).join('-');
    const version = parts.slice(cut).join('-');
    if (name !== '' && SEMANTIC_VERSION.test(version) && !NO_LEADING_ZERO.test(version.split('+')[0] ?? '')) {
      return { name, version };
    }
  }
  return undefined;
}

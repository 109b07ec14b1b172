/**
 * Reads a DAR (a zip of Daml-LF packages) the way a participant does on upload: the manifest names the DAR and
 * its main package; each `.dalf` listed in `Dalfs:` is one package whose id is the 64-hex suffix of its file
 * name, proven by the content (see dalf.ts for the two encodings understood). Used by the steps that check DARs
 * before distributing them; the sandbox's participants read DARs with a reader of their own
 * (packages/sandbox/src/participant-dar.ts), so that neither agrees with the other's bugs.
 */
import { LedgerbookError } from '../errors.js';
import { decodeDalf } from './dalf.js';
import { parseManifest } from './manifest.js';
import { unzip } from './zip.js';

export interface DarPackage {
  packageId: string;
  name: string;
  version: string;
  /** path of the `.dalf` entry inside the archive */
  path: string;
  /** `Module.Path:Entity` of each template; empty when the package is real Daml-LF (not decoded here) */
  templates: string[];
}

export interface DarInfo {
  /** from the manifest's `Name:` (e.g. `governance-core` of `governance-core-0.2.0`) */
  name: string;
  version: string;
  mainPackageId: string;
  /** every package listed in `Dalfs:`, the main package first */
  packages: DarPackage[];
}

const MANIFEST = 'META-INF/MANIFEST.MF';
const PACKAGE_ID_SUFFIX = /-([0-9a-f]{64})\.dalf$/;
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/**
 * @param bytes the .dar file's content
 * @param source how to name the DAR in errors (its path or file name)
 */
export function readDar(bytes: Uint8Array, source = 'DAR'): DarInfo {
  const fail = (where: string, what: string, hint?: string): never => {
    throw new LedgerbookError('LB_INPUT_INVALID', `${source}: ${where}: ${what}`, {
      hint: hint ?? 'rebuild the DAR (daml build) or check that the file is the DAR you meant',
    });
  };

  let entries: Record<string, Uint8Array>;
  try {
    entries = unzip(bytes);
  } catch (error) {
    return fail('archive', `not a readable zip archive (${(error as Error).message})`);
  }

  const manifestBytes = entries[MANIFEST];
  if (manifestBytes === undefined) return fail(MANIFEST, 'missing: a DAR must carry a JAR manifest');
  const manifest = parseManifest(Buffer.from(manifestBytes).toString('utf8'));
  if (!manifest.ok) return fail(`${MANIFEST} line ${manifest.problem.line}`, manifest.problem.message);
  const field = (key: string): string =>
    manifest.fields.get(key)?.trim() || fail(MANIFEST, `no "${key}:" field`);

  const darName = splitNameVersion(field('Name'));
  if (darName === undefined) {
    return fail(MANIFEST, `"Name: ${field('Name')}" does not end in a semantic version (name-1.2.3)`);
  }
  const mainPath = field('Main-Dalf');
  const listed = field('Dalfs')
    .split(',')
    .map((path) => path.trim())
    .filter((path) => path !== '');
  if (!listed.includes(mainPath)) return fail(MANIFEST, `"Main-Dalf: ${mainPath}" is not listed in "Dalfs:"`);
  if (new Set(listed).size !== listed.length) return fail(MANIFEST, '"Dalfs:" lists an entry twice');

  const ordered = [mainPath, ...listed.filter((path) => path !== mainPath)];
  const packages = ordered.map((path): DarPackage => {
    const content = entries[path];
    if (content === undefined) return fail(path, 'listed in the manifest but missing from the archive');
    const base = path.slice(path.lastIndexOf('/') + 1);
    const suffix = PACKAGE_ID_SUFFIX.exec(base);
    if (suffix === null) {
      return fail(path, 'the file name does not end in -<64 hex package id>.dalf');
    }
    const packageId = suffix[1] ?? '';
    const decoded = decodeDalf(content);
    if (!decoded.ok) return fail(path, decoded.message);
    if (decoded.dalf.packageId !== packageId) {
      return fail(
        path,
        `the content's package id ${decoded.dalf.packageId} does not match the id ${packageId} in its file name`,
        'the DAR is corrupt or was edited after it was built; rebuild it',
      );
    }
    if (decoded.dalf.metadata !== undefined) {
      const { name, version, templates } = decoded.dalf.metadata;
      return { packageId, name, version, path, templates };
    }
    const stem = base.slice(0, base.length - suffix[0].length);
    const fromFileName = splitNameVersion(stem) ?? { name: stem, version: '' };
    return { packageId, ...fromFileName, path, templates: [] };
  });

  const main = packages[0];
  if (main === undefined) return fail(MANIFEST, 'no packages');
  return { name: darName.name, version: darName.version, mainPackageId: main.packageId, packages };
}

/** `governance-core-0.2.0` → governance-core / 0.2.0: the version is the longest dash-suffix that is semver. */
export function splitNameVersion(text: string): { name: string; version: string } | undefined {
  for (let dash = text.indexOf('-'); dash > 0; dash = text.indexOf('-', dash + 1)) {
    const version = text.slice(dash + 1);
    if (SEMVER.test(version)) return { name: text.slice(0, dash), version };
  }
  return undefined;
}

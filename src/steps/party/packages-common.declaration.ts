/**
 * What the declarations of the package step kinds share: the schema pieces of their `with` blocks and their static
 * checks (node names, DAR files read and checked against their sha256), with nothing of their run-time code.
 */
import { createHash } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { readDar, type DarInfo } from '../../dar/read.js';
import { DataFileError, readDataBytesSync } from '../../data-file.js';
import type { StaticFinding } from '../../playbook/step-declaration.js';
import { LedgerbookError } from '../../errors.js';
import { didYouMean } from '../../playbook/closest.js';
import { hasExpression } from '../../playbook/expressions/template.js';
import { durationSchema } from '../../playbook/playbook-schema.js';
import type { Target } from '../../playbook/target.js';

// ---------------------------------------------------------------------------------------------------------
// Schema pieces

export const SHA256 = /^[0-9a-f]{64}$/;

/** A package id, as a participant names a package: 64 lowercase hex digits. */
export const packageIdSchema = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;

export const darFileSchema = {
  type: 'object',
  description:
    'A DAR file pinned by its digest: ledgerbook refuses it, before anything is sent, when it differs.',
  properties: {
    path: {
      type: 'string',
      minLength: 1,
      description: 'Path of the .dar file, relative to the playbook file (or absolute).',
    },
    sha256: {
      type: 'string',
      pattern: '^[0-9a-f]{64}$',
      description:
        'The sha256 of the file, 64 lowercase hex digits (`sha256sum file.dar`). The DPM checks nothing, so this pin is the only guard against uploading the wrong file.',
    },
  },
  required: ['path', 'sha256'],
  additionalProperties: false,
} as const;

export const nodeNameSchema = {
  type: 'string',
  minLength: 1,
  description: 'A node name of the target (`nodes:` in the target file).',
} as const;

export const waitTimeoutSchema = (fallback: string) =>
  ({
    ...durationSchema,
    description: `How long to wait for the workflow (default ${fallback}). A wait that runs out leaves the workflow alone; running the playbook again adopts it.`,
  }) as const;

// ---------------------------------------------------------------------------------------------------------
// Packages

/** A package as the steps report it (outputs `packages`): its id, and its name and version when known. */
export interface PackageRef {
  package_id: string;
  name: string;
  version: string;
}

// ---------------------------------------------------------------------------------------------------------
// DAR files

export interface DarSpec {
  path: string;
  sha256: string;
}

export interface LoadedDar {
  /** as written in the playbook */
  path: string;
  /** the name the DPM sees (`dar_files[].filename`): the file's base name */
  filename: string;
  sha256: string;
  data: Buffer;
  info: DarInfo;
}

export type DarCheck = { ok: true; dar: LoadedDar } | { ok: false; finding: StaticFinding };

export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Digest and DAR structure of one file's bytes, against its pin. Pointers are relative to the file entry. */
export function checkDarBytes(spec: DarSpec, data: Buffer): DarCheck {
  const actual = sha256Of(data);
  if (actual !== spec.sha256) {
    return {
      ok: false,
      finding: {
        pointer: '/sha256',
        message: `${spec.path} does not match its pinned sha256: the file's digest is ${actual}`,
        expected: spec.sha256,
        hint: 'the file is not the one that was pinned: check where it came from; if it is the DAR you mean, pin its digest (`sha256sum <file>`)',
      },
    };
  }
  try {
    const info = readDar(data, spec.path);
    return { ok: true, dar: { path: spec.path, filename: basename(spec.path), sha256: actual, data, info } };
  } catch (error) {
    if (!(error instanceof LedgerbookError)) throw error;
    return {
      ok: false,
      finding: { pointer: '/path', message: `not a readable DAR: ${error.message}`, hint: error.hint },
    };
  }
}

/** The largest DAR read (real ones are a few MiB): a bound, so that a wrong path cannot fill memory. */
export const MAX_DAR_BYTES = 512 * 1024 * 1024;

export function readProblem(spec: DarSpec, error: unknown): StaticFinding {
  if (!(error instanceof DataFileError)) throw error;
  return {
    pointer: '/path',
    message: `cannot read ${spec.path}: ${error.message}`,
    hint:
      error.code === 'ENOENT'
        ? 'the path is relative to the playbook file; check the name and that the file is there'
        : (error.hint ?? 'check the file and its permissions'),
  };
}

/** check(): each literal file entry read, digest-checked and opened; findings point into `with`. */
export function checkDarFiles(files: unknown, baseDir: string, at: string): StaticFinding[] {
  if (!Array.isArray(files)) return [];
  const findings: StaticFinding[] = [];
  const names = new Map<string, number>();
  files.forEach((entry: unknown, index) => {
    const pointer = `${at}/${index}`;
    if (typeof entry !== 'object' || entry === null) return;
    const { path, sha256 } = entry as Partial<Record<string, unknown>>;
    if (typeof path !== 'string' || typeof sha256 !== 'string') return;
    if (hasExpression(path) || hasExpression(sha256) || !SHA256.test(sha256)) return;
    const name = basename(path);
    const first = names.get(name);
    if (first !== undefined) {
      findings.push({
        pointer: `${pointer}/path`,
        message: `two files are named ${name} (entries ${first} and ${index}): the DPM knows DARs by file name`,
        hint: 'give each DAR a distinct file name',
      });
    }
    names.set(name, index);
    let data: Buffer;
    try {
      data = readDataBytesSync(resolve(baseDir, path), MAX_DAR_BYTES);
    } catch (error) {
      const finding = readProblem({ path, sha256 }, error);
      findings.push({ ...finding, pointer: `${pointer}${finding.pointer}` });
      return;
    }
    const checked = checkDarBytes({ path, sha256 }, data);
    if (!checked.ok) findings.push({ ...checked.finding, pointer: `${pointer}${checked.finding.pointer}` });
  });
  return findings;
}

// ---------------------------------------------------------------------------------------------------------
// Static checks of node names

export function nodeNames(target: Target | undefined): string[] {
  return Object.keys(target?.nodes ?? {});
}

/** A finding when a literal node name is not in the target; expressions are checked at run time. */
export function checkNode(name: unknown, target: Target | undefined, pointer: string): StaticFinding[] {
  if (typeof name !== 'string' || hasExpression(name) || target === undefined) return [];
  const names = nodeNames(target);
  if (names.includes(name)) return [];
  return [
    {
      pointer,
      message: `the target has no node '${name}'`,
      expected: names.length > 0 ? `one of ${names.join(', ')}` : 'a node of the target',
      hint: didYouMean(name, names) ?? `nodes of this target: ${names.join(', ') || 'none'}`,
    },
  ];
}

/** check(): each literal name in a list exists in the target and is listed once. */
export function checkNodeList(list: unknown, target: Target | undefined, at: string): StaticFinding[] {
  if (!Array.isArray(list)) return [];
  const findings: StaticFinding[] = [];
  const seen = new Set<string>();
  list.forEach((name: unknown, i) => {
    findings.push(...checkNode(name, target, `${at}/${i}`));
    if (typeof name === 'string' && !hasExpression(name)) {
      if (seen.has(name))
        findings.push({
          pointer: `${at}/${i}`,
          message: `${name} is listed twice`,
          hint: 'list each node once',
        });
      seen.add(name);
    }
  });
  return findings;
}

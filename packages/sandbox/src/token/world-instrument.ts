/**
 * Which instrument a state dir's world has, decided once and kept in `world.json`: the sandbox's own (no file), or
 * a network's own that a fork adopted (its admin, id and the node hosting the admin), so that every later start of
 * the state dir, with or without `--fork`, describes the same world.
 */
import { join } from 'node:path';
import type { Ledger } from '../ledger/ledger.js';
import { stateError } from '../errors.js';
import { readJson, writeJsonAtomic } from '../store.js';
import { type AdoptedInstrument, type WorldNode, describeWorld, genesisCid } from './world.js';

export const WORLD_FILE = 'world.json';

interface WorldFile {
  version: 1;
  instrument: AdoptedInstrument;
}

/**
 * The instrument the world adopts: the one the state dir recorded, else the one asked for when it is not the
 * sandbox's and the state dir's world is not the sandbox's already (recorded now, its admin on the node whose
 * participant hosts it with submission, else on the first node), else none.
 */
export function adoptedInstrument(
  stateDir: string,
  ledger: Ledger,
  nodes: readonly WorldNode[],
  asked: { admin: string; id: string } | undefined,
): AdoptedInstrument | undefined {
  const file = join(stateDir, WORLD_FILE);
  const stored = readJson<WorldFile>(file);
  if (stored !== undefined) {
    const i = (stored as Partial<WorldFile>).instrument as Partial<AdoptedInstrument> | undefined;
    if (typeof i?.admin !== 'string' || typeof i.id !== 'string' || !nodes.some((n) => n.name === i.host))
      throw stateError(
        `sandbox state ${file} does not name an instrument (admin, id) and a node of this sandbox hosting its admin`,
        'the file was edited or is corrupt; fork again into a fresh --state-dir',
      );
    return stored.instrument;
  }
  if (asked === undefined) return undefined;
  const own = describeWorld([...nodes]);
  if (asked.admin === own.instrument.admin && asked.id === own.instrument.id) return undefined;
  // a state dir whose world is the sandbox's already keeps it
  if (ledger.active(genesisCid(own, 0)) !== undefined) return undefined;
  const hosting = ledger.hosting(asked.admin);
  const host =
    nodes.find((n) => hosting[n.participantId] === 'submission') ??
    nodes.find((n) => hosting[n.participantId] !== undefined) ??
    nodes[0];
  if (host === undefined) throw new RangeError('the world needs at least one node');
  const instrument: AdoptedInstrument = { admin: asked.admin, id: asked.id, host: host.name };
  writeJsonAtomic(file, { version: 1, instrument } satisfies WorldFile);
  return instrument;
}

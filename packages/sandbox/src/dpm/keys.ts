/** Identifiers the simulated nodes derive rather than store. */
import { createHash } from 'node:crypto';

/**
 * A participant's namespace-key fingerprint in a decentralized party's namespace (the party's "owner key").
 * Derived from the participant and the party prefix so that every node computes the same value.
 */
export function ownerKeyOf(participantId: string, prefix: string): string {
  return '1220' + createHash('sha256').update(`owner-key/${participantId}/${prefix}`).digest('hex');
}

/** `prefix` of `prefix::1220…` (the whole text when it has no `::`) */
export function prefixOf(id: string): string {
  const at = id.indexOf('::');
  return at < 0 ? id : id.slice(0, at);
}

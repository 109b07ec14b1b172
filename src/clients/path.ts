/**
 * Values in URL paths. Every value a client puts in a path is percent-encoded, so that no value can add a segment,
 * a query or a fragment; Canton ids keep their `:` (paths allow it, and the services expect `::` as is).
 */

/** A path segment, percent-encoded (`/`, `?`, `#`, `%`, spaces … all encoded). */
export function pathSegment(value: string): string {
  return encodeURIComponent(value);
}

/** A Canton id (party, participant) as a path segment: percent-encoded, except `:`. */
export function idSegment(value: string): string {
  return encodeURIComponent(value).replace(/%3A/gi, ':');
}

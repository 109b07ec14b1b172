/**
 * Values in URL paths. Every value a client puts in a path is percent-encoded, so that no value can add a segment,
 * a query or a fragment; Canton ids keep their `:` (paths allow it, and the services expect `::` as is). No
 * encoding keeps `.`, `..` or an empty value from changing the path (URLs resolve `%2e%2e` as `..`), so those are
 * refused before a request is built.
 */
import { StepError } from '../errors.js';

function refuseDotSegments(value: string): void {
  if (value === '' || value === '.' || value === '..') {
    throw new StepError(
      `${JSON.stringify(value)} cannot name anything in a request's path: it would change the path`,
      {
        hint: 'check the id this value came from (an input, an output of an earlier step, or a service answer)',
      },
    );
  }
}

/** A path segment, percent-encoded (`/`, `?`, `#`, `%`, spaces … all encoded). */
export function pathSegment(value: string): string {
  refuseDotSegments(value);
  return encodeURIComponent(value);
}

/** A Canton id (party, participant) as a path segment: percent-encoded, except `:`. */
export function idSegment(value: string): string {
  refuseDotSegments(value);
  return encodeURIComponent(value).replace(/%3A/gi, ':');
}

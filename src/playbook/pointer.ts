/** JSON pointers (RFC 6901): `/steps/0/with/run`, with `~0` for `~` and `~1` for `/` inside a segment. */

function escapeSegment(segment: string | number): string {
  if (typeof segment === 'number') return String(segment);
  if (!segment.includes('~') && !segment.includes('/')) return segment;
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescapeSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** `""` is the root; any other pointer starts with `/`. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map(unescapeSegment);
}

export function childPointer(parent: string, segment: string | number): string {
  return `${parent}/${escapeSegment(segment)}`;
}

/** Whether `pointer` is `ancestor` itself or lies inside it. */
export function isWithin(pointer: string, ancestor: string): boolean {
  return pointer === ancestor || pointer.startsWith(`${ancestor}/`);
}

/**
 * Secret masking. Every resolved secret (and every access token a client obtains) is registered here; every
 * sink (events, renderers, errors, the journal, the summary) passes its text through `mask`. A secret also
 * leaks in encoded forms — in a Basic header, a form body, a URL, a JSON string, a hex dump — so those are
 * registered too. And credentials never show inside a URL: `mask` hides the userinfo of every URL in a text
 * (src/url-credentials.ts), whether or not a secret is registered.
 */
import { hideUrlCredentials } from '../url-credentials.js';

export const MASK = '***';

/**
 * The shortest secret ledgerbook accepts. A shorter value (`e`, `1`, `run`) occurs in ordinary text, so masking
 * it would hide words of every message; 8 is also the shortest password NIST SP 800-63B allows.
 */
export const MIN_SECRET_LENGTH = 8;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/**
 * The forms under which `secret` may appear in output, the secret itself first: as it is; its base64 and
 * base64url (padded or not, and the part of it that stays the same wherever the secret sits inside a longer
 * base64 text, as in a Basic header's `client:secret`); URL-encoded (path, query and form); JSON-escaped; and its
 * bytes in hex, lower and upper case.
 */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const base64 = bytes.toString('base64');
  const forms = [
    secret,
    base64,
    base64.replace(/=+$/, ''),
    bytes.toString('base64url'),
    ...base64Cores(bytes),
    encodeURIComponent(secret),
    new URLSearchParams({ s: secret }).toString().slice(2),
    JSON.stringify(secret).slice(1, -1),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
  ];
  return [...new Set(forms)].filter((form) => form.length > 0);
}

/**
 * The characters of a base64 text that depend only on `bytes`, whichever of the three byte offsets they start at
 * in the encoded data (a character that also encodes bits of a neighbouring byte is left out), in both base64
 * alphabets. A core shorter than the shortest secret is left out: it could occur by chance.
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (const shift of [1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes])
      .toString('base64url')
      .replace(/=+$/, '');
    // the first characters also encode the bytes before the secret; the last one, unless the data ends on a
    // 3-byte group, the byte after it
    const skip = shift === 1 ? 2 : 3;
    const end = (shift + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 1;
    const core = encoded.slice(skip, end);
    if (core.length < MIN_SECRET_LENGTH) continue;
    cores.push(core, core.replaceAll('-', '+').replaceAll('_', '/'));
  }
  const aligned = bytes.toString('base64url');
  const tail = bytes.length % 3 === 0 ? aligned : aligned.slice(0, -1);
  if (tail.length >= MIN_SECRET_LENGTH) cores.push(tail, tail.replaceAll('-', '+').replaceAll('_', '/'));
  return cores;
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

const NOTHING_KEPT: ReadonlySet<string> = new Set();

export class Masker {
  private readonly secrets = new Set<string>();
  private readonly forms = new Set<string>();
  private pattern: RegExp | undefined;

  /** number of distinct secrets registered */
  get size(): number {
    return this.secrets.size;
  }

  add(secret: string): void {
    if (secret.length === 0 || this.secrets.has(secret)) return;
    this.secrets.add(secret);
    for (const form of secretForms(secret)) this.forms.add(form);
    // Longest first, so that a secret containing another one is masked whole.
    const alternatives = [...this.forms].sort((a, b) => b.length - a.length).map(escapeRegExp);
    this.pattern = new RegExp(alternatives.join('|'), 'g');
  }

  /**
   * `text` with every occurrence of every registered form replaced by `***`, and the userinfo of every URL in it
   * hidden. Occurrences that overlap (two secrets sharing characters) are merged, so no character of either is
   * left visible.
   */
  mask(text: string): string {
    return hideUrlCredentials(this.maskSecrets(text));
  }

  private maskSecrets(text: string): string {
    const pattern = this.pattern;
    if (!pattern) return text;
    pattern.lastIndex = 0;
    let match = pattern.exec(text);
    if (!match) return text;
    let out = '';
    let copied = 0;
    let start = match.index;
    let end = start + match[0].length;
    pattern.lastIndex = start + 1;
    while ((match = pattern.exec(text))) {
      const matchEnd = match.index + match[0].length;
      if (match.index <= end) {
        end = Math.max(end, matchEnd);
      } else {
        out += text.slice(copied, start) + MASK;
        copied = end;
        start = match.index;
        end = matchEnd;
      }
      pattern.lastIndex = match.index + 1;
    }
    return out + text.slice(copied, start) + MASK + text.slice(end);
  }

  /**
   * `value` with every string VALUE masked. Keys are structure and stay as they are (masking rewrites values,
   * never the shape of a record); so do the values under a `keep` key at any depth (an event's type, status or
   * step id). Plain objects and arrays are copied where something in them changed, else returned as they are;
   * other values (numbers, class instances such as Date or Error) are returned as they are, so mask an error's
   * message yourself.
   */
  maskDeep<T>(value: T, keep: ReadonlySet<string> = NOTHING_KEPT): T {
    return this.maskValue(value, new WeakMap(), keep) as T;
  }

  private maskValue(value: unknown, seen: WeakMap<object, unknown>, keep: ReadonlySet<string>): unknown {
    if (typeof value === 'string') return this.mask(value);
    if (typeof value !== 'object' || value === null) return value;
    const known = seen.get(value);
    if (known !== undefined) return known;
    if (Array.isArray(value)) {
      const copy: unknown[] = [];
      seen.set(value, copy);
      let changed = false;
      for (const element of value) {
        const masked = this.maskValue(element, seen, keep);
        changed ||= masked !== element;
        copy.push(masked);
      }
      if (changed) return copy;
      seen.set(value, value);
      return value;
    }
    if (!isPlainObject(value)) return value;
    const copy: Record<string, unknown> = {};
    seen.set(value, copy);
    let changed = false;
    for (const [key, element] of Object.entries(value)) {
      const masked = keep.has(key) ? element : this.maskValue(element, seen, keep);
      changed ||= masked !== element;
      copy[key] = masked;
    }
    if (changed) return copy;
    seen.set(value, value);
    return value;
  }
}

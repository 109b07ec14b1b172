/**
 * The recipients of a distribution: a CSV file (header `receiver,amount`, optional `reference`) read as a stream,
 * or an inline list. Everything is checked before anything is sent — the form of the file, party ids, amounts
 * (> 0, at most 10 fraction digits), duplicate receivers, the sender paying itself — and every problem is reported
 * at its line and column. Only what a transfer needs is kept per recipient, so a 100,000-line file costs a few MB.
 */
import { closeSync, createReadStream, readSync } from 'node:fs';
import { AmountTotal, positiveAmountProblem } from '../../clients/amount-text.js';
import { openDataFile } from '../../data-file.js';
import type { Diagnostic } from '../../diagnostics.js';
import { didYouMean } from '../../playbook/closest.js';
import { isPartyId, partyIdProblem } from './common.declaration.js';
import { CsvReader, type CsvProblem, type CsvRecord } from './csv.js';

export interface Recipient {
  /** the line of the file (or the entry of an inline list, from 1) */
  line: number;
  receiver: string;
  amount: string;
  reference: string | null;
}

export interface RecipientsProblem {
  line: number;
  col: number;
  message: string;
  hint?: string;
  /** inline lists: where in `with.recipients` (`/3/amount`) */
  pointer?: string;
}

export interface Recipients {
  /** the file as the playbook names it, or `with.recipients` */
  source: string;
  recipients: Recipient[];
  /** the sum of every amount */
  total: string;
  problems: RecipientsProblem[];
  /** problems found beyond the ones kept */
  more: number;
}

export const COLUMNS = ['receiver', 'amount', 'reference'] as const;
const REQUIRED = ['receiver', 'amount'] as const;
/** problems kept for the report; the rest are counted */
const KEEP_PROBLEMS = 1000;
const MAX_REFERENCE = 1024;
const HEADER_HINT = 'the first line names the columns: receiver,amount (and optionally reference)';

export interface RecipientRules {
  /** the distribution's sender: it cannot be a recipient */
  sender?: string | undefined;
  /** keep the recipients (false: only check them, in less memory) */
  keep?: boolean;
}

/** Checks recipients one by one and keeps what is needed of them. */
class Collector {
  readonly recipients: Recipient[] = [];
  readonly problems: RecipientsProblem[] = [];
  more = 0;
  private readonly total = new AmountTotal();
  /** the first line of each receiver, by its id in lower case (and the id, when it is not all lower case) */
  private readonly firstLine = new Map<string, number | { line: number; receiver: string }>();

  constructor(private readonly rules: RecipientRules) {}

  problem(problem: RecipientsProblem): void {
    if (this.problems.length < KEEP_PROBLEMS) this.problems.push(problem);
    else this.more++;
  }

  /** One recipient; `at` says where each of its values is (for problems). */
  add(
    line: number,
    values: { receiver: string; amount: string; reference: string | null },
    at: (column: (typeof COLUMNS)[number]) => { line: number; col: number; pointer?: string },
  ): void {
    let ok = true;
    const { receiver, amount, reference } = values;
    const report = (column: (typeof COLUMNS)[number], message: string, hint?: string): void => {
      ok = false;
      this.problem({ ...at(column), message, ...(hint ? { hint } : {}) });
    };
    const partyProblem = partyIdProblem(receiver);
    if (receiver.trim() !== receiver) report('receiver', 'the receiver has spaces around it', 'remove them');
    else if (receiver === '')
      report('receiver', 'the receiver is empty', 'write the party id <hint>::1220<64 hex>');
    else if (partyProblem !== undefined) {
      ok = false;
      const where = at('receiver');
      this.problem({
        ...where,
        // an inline list has no columns: its pointer says where
        col: where.pointer === undefined ? where.col + partyProblem.at : where.col,
        message: partyProblem.message,
        hint: partyProblem.hint,
      });
    } else if (receiver === this.rules.sender)
      report('receiver', 'the receiver is the sender itself', 'remove the line: a distribution pays others');
    if (amount.trim() !== amount) report('amount', 'the amount has spaces around it', 'remove them');
    else {
      const problem = amount === '' ? 'the amount is empty' : positiveAmountProblem(amount);
      if (problem !== undefined)
        report('amount', problem, 'an amount is a decimal > 0 with at most 10 fraction digits, e.g. 0.05');
    }
    if (reference !== null && reference.length > MAX_REFERENCE)
      report('reference', `the reference is longer than ${MAX_REFERENCE} characters`);
    if (partyProblem === undefined) {
      // party ids are case-sensitive: two that differ only in case are two parties, one of them most likely a typo
      const folded = receiver.toLowerCase();
      const seen = this.firstLine.get(folded);
      const first = typeof seen === 'number' ? { line: seen, receiver: folded } : seen;
      // most party ids are lower case: a number is kept for those, the id only for the others
      if (first === undefined) this.firstLine.set(folded, folded === receiver ? line : { line, receiver });
      else if (first.receiver === receiver)
        report(
          'receiver',
          `${clip(receiver)} is listed twice (first on line ${first.line})`,
          'a distribution pays each receiver once: merge the two lines into one',
        );
      else
        report(
          'receiver',
          `${clip(receiver)} differs from the receiver on line ${first.line} (${clip(first.receiver)}) only in letter case`,
          'party ids are case-sensitive, so these are two different parties and one of them is most likely mistyped: check which party each line means and fix or remove the other (pay a party that really differs only in case in another distribution)',
        );
    }
    if (!ok) return;
    this.total.add(amount);
    if (this.rules.keep !== false) this.recipients.push({ line, receiver, amount, reference });
  }

  result(source: string): Recipients {
    return {
      source,
      recipients: this.recipients,
      total: this.total.toString(),
      problems: this.problems,
      more: this.more,
    };
  }
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

/** Reads records of a recipients CSV: the header first, then one recipient per record. */
class CsvRecipients {
  private columns: Array<string | undefined> | undefined;
  private headerOk = false;
  private records = 0;

  constructor(private readonly collector: Collector) {}

  problem(problem: CsvProblem): void {
    this.collector.problem(problem);
  }

  record(record: CsvRecord): void {
    if (this.columns === undefined) {
      this.header(record);
      return;
    }
    this.records++;
    if (!this.headerOk) return;
    const columns = this.columns;
    if (record.fields.length !== columns.length) {
      const n = record.fields.length;
      this.collector.problem({
        line: record.line,
        col: 1,
        message: `the line has ${n} field${n === 1 ? '' : 's'}, the header ${columns.length} (${columns.join(',')})`,
        hint: 'quote a value that contains a comma ("…"), and give every line the columns of the header',
      });
      return;
    }
    const field = (name: string) => record.fields[columns.indexOf(name)];
    const value = (name: string): string | undefined => field(name)?.value;
    this.collector.add(
      record.line,
      {
        receiver: value('receiver') ?? '',
        amount: value('amount') ?? '',
        reference: columns.includes('reference') ? (value('reference') ?? '') || null : null,
      },
      (column) => {
        const f = field(column);
        return f ? { line: f.line, col: f.col } : { line: record.line, col: 1 };
      },
    );
  }

  end(): void {
    if (this.columns === undefined) {
      this.collector.problem({
        line: 1,
        col: 1,
        message: 'the file is empty',
        hint: `${HEADER_HINT}, then one line per recipient`,
      });
    } else if (this.records === 0 && this.headerOk) {
      this.collector.problem({
        line: 2,
        col: 1,
        message: 'the file lists no recipient',
        hint: 'add one line per recipient under the header: <party id>,<amount>',
      });
    }
  }

  private header(record: CsvRecord): void {
    const names = record.fields.map((f) => f.value.trim());
    this.columns = names;
    let ok = true;
    const seen = new Set<string>();
    record.fields.forEach((f, i) => {
      const name = names[i] ?? '';
      if (!(COLUMNS as readonly string[]).includes(name)) {
        ok = false;
        const looksLikeData = isPartyId(name) || /^\d/.test(name);
        this.collector.problem({
          line: f.line,
          col: f.col,
          message: looksLikeData
            ? 'the first line is a recipient, not the header'
            : `unknown column '${clip(name)}'`,
          hint: looksLikeData
            ? `add the header line: receiver,amount (and optionally reference)`
            : (didYouMean(name, COLUMNS) ?? HEADER_HINT),
        });
      } else if (seen.has(name)) {
        ok = false;
        this.collector.problem({ line: f.line, col: f.col, message: `column '${name}' is named twice` });
      }
      seen.add(name);
    });
    for (const required of REQUIRED) {
      if (ok && !seen.has(required)) {
        ok = false;
        this.collector.problem({
          line: record.line,
          col: 1,
          message: `the header has no '${required}' column`,
          hint: HEADER_HINT,
        });
      }
    }
    this.headerOk = ok;
  }
}

/** Where in a chunk that failed to decode the first byte that is not UTF-8 is (lines counted from `line`). */
function notUtf8(bytes: Uint8Array, line: number): RecipientsProblem {
  const lossy = Buffer.from(bytes).toString('utf8');
  const at = Math.max(0, lossy.indexOf('\uFFFD'));
  const before = lossy.slice(0, at);
  let lines = line;
  for (let i = before.indexOf('\n'); i >= 0; i = before.indexOf('\n', i + 1)) lines++;
  return {
    line: lines,
    col: at - before.lastIndexOf('\n'),
    message: 'the file is not UTF-8 text',
    hint: 'save it as UTF-8 (CSV UTF-8, without a BOM)',
  };
}

/** A reader fed with text: counts lines so that an encoding error can be placed. */
function feeder(collector: Collector) {
  const csv = new CsvRecipients(collector);
  const reader = new CsvReader(csv);
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let lines = 1;
  let broken = false;
  return {
    push(bytes: Uint8Array): void {
      if (broken) return;
      let text: string;
      try {
        text = decoder.decode(bytes, { stream: true });
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
        broken = true;
        collector.problem(notUtf8(bytes, lines));
        return;
      }
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
      reader.push(text);
    },
    end(): void {
      if (broken) return;
      try {
        reader.push(decoder.decode());
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
        collector.problem(notUtf8(new Uint8Array([0xff]), lines));
        return;
      }
      reader.end();
      csv.end();
    },
  };
}

const CHUNK = 64 * 1024;

/**
 * Reads and checks a recipients file without blocking on anything but the disk (for `validate`). A path that is no
 * regular file (a folder, a FIFO, a device) throws a DataFileError.
 */
export function readRecipientsSync(path: string, source: string, rules: RecipientRules): Recipients {
  const collector = new Collector(rules);
  const feed = feeder(collector);
  const { fd } = openDataFile(path, Number.MAX_SAFE_INTEGER);
  try {
    const buffer = Buffer.alloc(CHUNK);
    for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) feed.push(buffer.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  feed.end();
  return collector.result(source);
}

/** Streams and checks a recipients file. */
export async function readRecipients(
  path: string,
  source: string,
  rules: RecipientRules,
  signal?: AbortSignal,
): Promise<Recipients> {
  const collector = new Collector(rules);
  const feed = feeder(collector);
  const { fd } = openDataFile(path, Number.MAX_SAFE_INTEGER);
  for await (const chunk of createReadStream('', { fd, highWaterMark: CHUNK, signal }))
    feed.push(chunk as Buffer);
  feed.end();
  return collector.result(source);
}

export interface InlineRecipient {
  receiver: string;
  amount: string;
  reference?: string;
}

/** Checks an inline list (`with.recipients: [{receiver, amount, reference?}]`); positions are entries from 1. */
export function inlineRecipients(list: readonly InlineRecipient[], rules: RecipientRules): Recipients {
  const collector = new Collector(rules);
  list.forEach((entry, index) => {
    collector.add(
      index + 1,
      { receiver: entry.receiver, amount: entry.amount, reference: entry.reference ?? null },
      (column) => ({ line: index + 1, col: 1, pointer: `/${index}/${column}` }),
    );
  });
  if (list.length === 0)
    collector.problem({ line: 1, col: 1, message: 'the list names no recipient', pointer: '' });
  return collector.result('with.recipients');
}

/** The problems as diagnostics of the recipients file (or of `with.recipients`). */
export function recipientDiagnostics(result: Recipients): Diagnostic[] {
  const diagnostics: Diagnostic[] = result.problems.map((p) => ({
    file: result.source,
    line: p.line,
    col: p.col,
    pointer: p.pointer ?? '',
    message: p.message,
    ...(p.hint ? { hint: p.hint } : {}),
    rule: 'recipients',
  }));
  if (result.more > 0) {
    const last = result.problems.at(-1);
    diagnostics.push({
      file: result.source,
      line: last?.line ?? 1,
      // at the last problem shown, so that sorting by position keeps it after them
      col: (last?.col ?? 0) + 1,
      pointer: '',
      message: `and ${result.more} more problem${result.more === 1 ? '' : 's'} after this line`,
      rule: 'recipients',
    });
  }
  return diagnostics;
}

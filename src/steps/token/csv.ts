/**
 * A streaming CSV reader (RFC 4180: comma-separated, `"`-quoted fields with `""` for a quote, a quoted field may
 * span lines) that knows where every field starts, so that a problem in a recipients file is reported at its line
 * and column. Text is fed in chunks of any size; each record is handed over as soon as it ends, so a file of any
 * length is read in constant memory. It accepts only what a recipients file should be: LF line endings and no
 * byte-order mark — both are reported at their position, with the fix, rather than read silently.
 */

export interface CsvField {
  value: string;
  /** 1-based line and column (in characters) where the field starts */
  line: number;
  col: number;
}

export interface CsvRecord {
  /** the line the record starts on */
  line: number;
  fields: CsvField[];
}

export interface CsvProblem {
  line: number;
  col: number;
  message: string;
  hint?: string;
}

export interface CsvSink {
  record(record: CsvRecord): void;
  /** a problem of the file's form; reading goes on so that every problem is found */
  problem(problem: CsvProblem): void;
}

type State = 'field-start' | 'unquoted' | 'quoted' | 'quote-in-quoted';

/**
 * No field of a recipients file is near this long (a party id is under 300 characters, a reference at most
 * 1,024); beyond it the rest of the field is skipped, not kept, so a file of one endless line is read in constant
 * memory too.
 */
export const MAX_FIELD_LENGTH = 4096;

export class CsvReader {
  private state: State = 'field-start';
  private line = 1;
  private col = 0;
  private value = '';
  private fieldLine = 1;
  private fieldCol = 1;
  private fields: CsvField[] = [];
  private recordLine = 1;
  private started = false;
  private reportedCr = false;
  private overlong = false;

  constructor(private readonly sink: CsvSink) {}

  push(text: string): void {
    for (const ch of text) this.char(ch);
  }

  end(): void {
    if (this.state === 'quoted') {
      this.sink.problem({
        line: this.fieldLine,
        col: this.fieldCol,
        message: 'a quoted field is never closed',
        hint: 'close it with a "; a quote inside a quoted field is written ""',
      });
    }
    if (this.fields.length > 0 || this.value !== '' || this.state !== 'field-start') this.endRecord();
  }

  private char(ch: string): void {
    this.col++;
    if (!this.started) {
      this.started = true;
      if (ch === '\uFEFF') {
        this.sink.problem({
          line: 1,
          col: 1,
          message: 'the file starts with a byte-order mark (BOM)',
          hint: "save it as UTF-8 without a BOM (spreadsheets: 'CSV UTF-8' adds one; remove it with `sed -i '1s/^\\xEF\\xBB\\xBF//' FILE`)",
        });
        this.col = 0;
        return;
      }
    }
    switch (this.state) {
      case 'field-start':
        this.fieldLine = this.line;
        this.fieldCol = this.col;
        if (ch === '"') this.state = 'quoted';
        else this.unquoted(ch);
        return;
      case 'unquoted':
        this.unquoted(ch);
        return;
      case 'quoted':
        if (ch === '"') this.state = 'quote-in-quoted';
        else {
          this.append(ch);
          if (ch === '\n') this.newLine();
        }
        return;
      case 'quote-in-quoted':
        if (ch === '"') {
          this.append('"');
          this.state = 'quoted';
        } else if (ch === ',' || ch === '\n' || ch === '\r') {
          this.state = 'unquoted';
          this.unquoted(ch);
        } else {
          this.sink.problem({
            line: this.line,
            col: this.col,
            message: `unexpected ${JSON.stringify(ch)} after the closing quote of a field`,
            hint: 'a quoted field ends with " followed by a comma or the end of the line; write a quote inside it as ""',
          });
          this.append(ch);
          this.state = 'unquoted';
        }
        return;
    }
  }

  private unquoted(ch: string): void {
    if (ch === ',') {
      this.endField();
      this.state = 'field-start';
    } else if (ch === '\n') {
      this.endRecord();
      this.newLine();
    } else if (ch === '\r') {
      if (!this.reportedCr) {
        this.reportedCr = true;
        this.sink.problem({
          line: this.line,
          col: this.col,
          message: 'the line ends with CRLF (\\r\\n): a recipients file has LF line endings',
          hint: 'convert it (dos2unix FILE, or your editor\'s "LF" line endings) and run again',
        });
      }
    } else {
      if (this.state === 'field-start') this.state = 'unquoted';
      if (ch === '"') {
        this.sink.problem({
          line: this.line,
          col: this.col,
          message: 'a quote inside an unquoted field',
          hint: 'quote the whole field ("…") and write the quote as ""',
        });
      }
      this.append(ch);
      this.state = 'unquoted';
    }
  }

  private append(ch: string): void {
    if (this.value.length < MAX_FIELD_LENGTH) this.value += ch;
    else this.overlong = true;
  }

  private newLine(): void {
    this.line++;
    this.col = 0;
  }

  private endField(): void {
    if (this.overlong) {
      this.overlong = false;
      this.sink.problem({
        line: this.fieldLine,
        col: this.fieldCol,
        message: `a field longer than ${MAX_FIELD_LENGTH} characters`,
        hint: 'a recipients file holds party ids, amounts and short references: is this the right file?',
      });
    }
    this.fields.push({ value: this.value, line: this.fieldLine, col: this.fieldCol });
    this.value = '';
    this.fieldLine = this.line;
    this.fieldCol = this.col + 1;
  }

  private endRecord(): void {
    this.endField();
    const record = { line: this.recordLine, fields: this.fields };
    this.fields = [];
    this.state = 'field-start';
    this.recordLine = this.line + 1;
    // a line with nothing on it is no record
    if (!(record.fields.length === 1 && record.fields[0]?.value === '')) this.sink.record(record);
  }
}

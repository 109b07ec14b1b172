/** A finding about a playbook, target or input file, with its source position. */
export interface Diagnostic {
  /** path of the file as the user named it (or `<input>` for --input values) */
  file: string;
  /** 1-based line and column of the offending node (the key, for an unknown key) */
  line: number;
  col: number;
  /** JSON pointer of the offending value within the document, `""` for the root */
  pointer: string;
  /** what is wrong, one sentence, no trailing period */
  message: string;
  /** what was expected (type, allowed values, pattern in words) */
  expected?: string | undefined;
  /** what to do: the closest valid key or kind, an example */
  hint?: string | undefined;
  /** the rule that found it: `schema`, `yaml`, `unknown-step-kind`, `forward-reference`, … */
  rule: string;
}

export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  return (
    a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col || a.message.localeCompare(b.message)
  );
}

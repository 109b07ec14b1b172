import { ValidationError } from '../../errors.js';
import type { Diagnostic } from '../../diagnostics.js';
import { makeOutput, reportError, versionEvent, type GlobalOptions } from '../output.js';
import { prepare } from '../prepare.js';

export interface ValidateOptions extends GlobalOptions {
  target: string;
  input: string[];
  secretsFile?: string;
}

/**
 * `ledgerbook validate`: every given playbook against the schemas and rules, with the target and inputs when
 * given. All problems of all files at once; exit 65 if any.
 */
export async function validateCommand(files: string[], options: ValidateOptions): Promise<number> {
  const out = makeOutput(options);
  out.event(versionEvent());
  const diagnostics: Diagnostic[] = [];
  let code = 0;
  for (const file of files) {
    try {
      const prepared = await prepare({
        playbookFile: file,
        target: options.target,
        inputs: options.input,
        secretsFile: options.secretsFile,
        env: process.env,
        requireInputs: options.input.length > 0,
        requireSecrets: false,
        warn: (w) =>
          out.say(
            `warning: ${w.file}:${w.line}:${w.col}: ${w.message}${w.hint ? `\n  hint: ${w.hint}` : ''}\n`,
          ),
      });
      const count = prepared.playbook.steps.length;
      out.say(`✔ ${file}: ${count} ${count === 1 ? 'step' : 'steps'} valid\n`);
    } catch (error) {
      if (error instanceof ValidationError) diagnostics.push(...error.diagnostics);
      else code = reportError(error, out);
    }
  }
  if (diagnostics.length > 0)
    return reportError(new ValidationError('LB_PLAYBOOK_INVALID', diagnostics), out);
  return code;
}

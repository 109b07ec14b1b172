import { UsageError } from '../../errors.js';
import { schemaFiles } from '../schema-files.js';
import { declareAllStepKinds } from '../../steps/index.js';
import { makeOutput, reportError, type GlobalOptions } from '../output.js';
import { stdout } from '../stdio.js';

/**
 * `ledgerbook schema [name]`: print a JSON Schema — `playbook` (default), `target`, `events`, or a step kind
 * such as `core.shell` — or `--list` the names.
 */
export async function schemaCommand(
  name: string | undefined,
  options: GlobalOptions & { list?: boolean },
): Promise<number> {
  const out = makeOutput(options);
  try {
    const files = schemaFiles(await declareAllStepKinds());
    const byName = new Map<string, unknown>();
    for (const [path, schema] of Object.entries(files)) {
      const base = path
        .replace(/^schemas\//, '')
        .replace(/^steps\//, '')
        .replace(/\.schema\.json$/, '');
      byName.set(base, schema);
    }
    if (options.list) {
      for (const [key] of byName) stdout.write(`${key}\n`);
      return 0;
    }
    const schema = byName.get(name ?? 'playbook');
    if (schema === undefined) {
      throw new UsageError(`no schema named '${name ?? ''}'`, `one of: ${[...byName.keys()].join(', ')}`);
    }
    stdout.write(`${JSON.stringify(schema, null, 2)}\n`);
    return 0;
  } catch (error) {
    return reportError(error, out);
  }
}

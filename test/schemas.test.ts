import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAjv } from '../src/playbook/schema-check.js';
import { schemaFiles } from '../src/cli/schema-files.js';
import { loadAllStepKinds } from '../src/steps/index.js';

const dir = join(import.meta.dirname, '..', 'schemas');
const generated = schemaFiles(await loadAllStepKinds());

function filesOnDisk(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesOnDisk(join(folder, entry.name))
      : entry.name.endsWith('.json')
        ? [relative(dir, join(folder, entry.name))]
        : [],
  );
}

describe('schemas/', () => {
  it('holds exactly the generated files', () => {
    expect(filesOnDisk(dir).sort(), 'run `npm run schemas` to regenerate schemas/').toEqual(
      Object.keys(generated).sort(),
    );
  });

  it.each(Object.keys(generated))('%s is what the sources generate', (path) => {
    const onDisk = JSON.parse(readFileSync(join(dir, path), 'utf8')) as unknown;
    expect(onDisk, `schemas/${path} is out of date: run \`npm run schemas\``).toEqual(
      JSON.parse(JSON.stringify(generated[path])),
    );
  });

  it.each(Object.keys(generated))('%s is a valid draft 2020-12 schema', (path) => {
    const schema = generated[path] as { $schema?: string };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(() => createAjv().compile(schema)).not.toThrow();
  });
});

describe('the editor playbook schema', () => {
  const validate = createAjv().compile(generated['playbook.schema.json'] as object);

  it('checks each step’s with against the kind named by uses', () => {
    const playbook = (step: object): object => ({ name: 'x', steps: [{ id: 'a', ...step }] });
    expect(validate(playbook({ uses: 'core.log', with: { message: 'hi', level: 'warn' } }))).toBe(true);
    expect(validate(playbook({ uses: 'core.log', with: { mesage: 'hi' } }))).toBe(false);
    expect(validate(playbook({ uses: 'core.shell', with: { run: ['echo', 'hi'] } }))).toBe(true);
    expect(validate(playbook({ uses: 'core.shell', with: { message: 'hi' } }))).toBe(false);
    expect(validate(playbook({ uses: 'core.nope', with: {} }))).toBe(false);
  });

  it('accepts ${{ … }} wherever the validator leaves the value to run time', () => {
    const playbook = {
      name: 'x',
      steps: [{ id: 'a', uses: 'core.wait', with: { until: 'x', interval: '${{ inputs.i }}' } }],
    };
    expect(validate(playbook)).toBe(true);
    const shell = {
      name: 'x',
      steps: [{ id: 'a', uses: 'core.shell', with: { run: '${{ inputs.cmd }}', env: '${{ vars.env }}' } }],
    };
    expect(validate(shell)).toBe(true);
    const wrong = {
      name: 'x',
      steps: [{ id: 'a', uses: 'core.wait', with: { until: 'x', interval: 'soon' } }],
    };
    expect(validate(wrong)).toBe(false);
  });
});

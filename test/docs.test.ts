/**
 * Docs that are executed: every playbook shipped or shown in the README and docs validates, every shipped
 * playbook carries the editor's schema line, and every `--flag` and command the docs mention exists in --help.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bitcoinAddressProblem } from '../src/clients/bitcoin-address.js';
import { parseSource } from '../src/validation/load.js';
import { validatePlaybook } from '../src/validation/validate.js';
import { fixedStepKinds, loadAllStepKinds } from '../src/steps/index.js';
import { cli } from './e2e/cli.js';

const root = join(import.meta.dirname, '..');
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
  'packages/sandbox/README.md',
];
const text = (file: string): string => readFileSync(join(root, file), 'utf8');
const shipped = readdirSync(join(root, 'playbooks')).filter((f) => f.endsWith('.yaml'));

function yamlBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
}

const stepKinds = fixedStepKinds((await loadAllStepKinds()).values());

describe('playbooks in the repository and in the docs', () => {
  it.each(shipped)('playbooks/%s validates and starts with the schema line', (file) => {
    const source = text(join('playbooks', file));
    expect(source.startsWith('# yaml-language-server: $schema=../schemas/playbook.schema.json\n')).toBe(true);
    const { doc, diagnostics } = parseSource(join(root, 'playbooks', file), source);
    expect(diagnostics).toEqual([]);
    expect(validatePlaybook(doc, { registry: stepKinds }).diagnostics).toEqual([]);
  });

  it('every playbook shown in a ```yaml block of the docs validates', () => {
    const shown = docs.flatMap((file) => yamlBlocks(text(file)).map((block) => ({ file, block })));
    const playbooks = shown.filter(({ block }) => /^steps:/m.test(block));
    expect(playbooks.length).toBeGreaterThan(0);
    for (const { file, block } of playbooks) {
      // as if kept beside the shipped playbooks: the files they name are read from there
      const { doc, diagnostics } = parseSource(join(root, 'playbooks', 'shown-in-docs.yaml'), block);
      expect(diagnostics, file).toEqual([]);
      expect(validatePlaybook(doc, { registry: stepKinds }).diagnostics, `${file}:\n${block}`).toEqual([]);
    }
  });
});

describe('values the docs give', () => {
  it('every Bitcoin address given as an --input is one the sandbox’s network pays out to', () => {
    const given = docs.flatMap((file) =>
      [...text(file).matchAll(/--input (destination|address)=(\S+)/g)].map((m) => ({
        file,
        address: m[2] ?? '',
      })),
    );
    expect(given.length).toBeGreaterThan(0);
    for (const { file, address } of given)
      expect(bitcoinAddressProblem(address, 'devnet'), `${file}: ${address}`).toBeUndefined();
  });

  it('the README’s redeem command is usable as written: its inputs validate', async () => {
    const command = /npx ledgerbook run (playbooks\/redeem\.yaml .*)/.exec(text('README.md'))?.[1] ?? '';
    expect(command).toContain('--input destination=');
    const validated = await cli(['validate', ...command.split(' ')], { cwd: root });
    expect(validated.code, validated.stderr).toBe(0);
    // what it replaced was not: a placeholder is no address
    const placeholder = await cli(
      ['validate', ...command.replace(/destination=\S+/, 'destination=tb1q…').split(' ')],
      { cwd: root },
    );
    expect(placeholder.code).toBe(65);
    expect(placeholder.stderr).toContain("'tb1q…' is not a valid value here");
  });
});

describe('commands and flags the docs mention', () => {
  it('exist in --help', async () => {
    const commands = [
      'validate',
      'plan',
      'run',
      'status',
      'schema',
      'sandbox up',
      'show',
      'state unlock',
      'state resolve',
      'state migrate',
      'state push',
      'state pull',
    ];
    const helps = await Promise.all([
      cli(['--help'], { cwd: root }),
      ...commands.map((c) => cli([...c.split(' '), '--help'], { cwd: root })),
    ]);
    const help = helps.map((h) => h.stdout).join('\n');
    for (const file of docs) {
      const mentioned = new Set(
        [...text(file).matchAll(/(?<![\w-])--([a-z][a-z-]+)/g)]
          .map((m) => m[1] ?? '')
          .filter((f) => f !== ''),
      );
      for (const flag of mentioned) expect(help, `${file} mentions --${flag}`).toContain(`--${flag}`);
      for (const m of text(file).matchAll(/(?:npx |`)ledgerbook ([a-z]+)/g)) {
        const command = m[1] ?? '';
        expect(
          ['validate', 'plan', 'run', 'show', 'status', 'schema', 'sandbox', 'state'],
          `${file}: ledgerbook ${command}`,
        ).toContain(command);
      }
    }
  });
});

describe('the references the code cites', () => {
  const referenceDir = join(root, 'docs/reference');
  const sectionsOf = (file: string): Set<string> =>
    new Set(
      [
        ...readFileSync(join(referenceDir, file), 'utf8').matchAll(
          /^#+\s+(?:§\s*)?(\d+[a-z]?(?:\.\d+[a-z]?)*)[.\s]/gm,
        ),
      ].map((m) => m[1] ?? ''),
    );
  const sourceFiles = (dir: string): string[] =>
    readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.(ts|mjs|md)$/.test(f))
      .map((f) => join(dir, f));

  it('every "<reference>.md §N" in src, test, bench, docs, the READMEs and contracts/ names a file and section of docs/reference', () => {
    const sections = new Map<string, Set<string>>();
    const missing: string[] = [];
    let citations = 0;
    const files = [
      ...sourceFiles('src'),
      ...sourceFiles('test'),
      ...sourceFiles('bench'),
      ...sourceFiles('docs'),
      'README.md',
      'contracts/dpm.openapi.yaml',
    ];
    for (const file of files) {
      const source = text(file);
      for (const m of source.matchAll(
        /\b((?:dpm|wrapped|canton-json)-api|anchors)\.md((?:[ ,]*(?:and )?§\s?\d+[a-z]?(?:\.\d+[a-z]?)*)*)/g,
      )) {
        citations++;
        const name = `${m[1] ?? ''}.md`;
        if (!sections.has(name)) {
          try {
            sections.set(name, sectionsOf(name));
          } catch {
            missing.push(`${file}: ${name} is not in docs/reference`);
            continue;
          }
        }
        for (const [, section] of (m[2] ?? '').matchAll(/§\s?(\d+[a-z]?(?:\.\d+[a-z]?)*)/g)) {
          if (!sections.get(name)?.has(section ?? ''))
            missing.push(`${file}: ${name} has no §${section ?? ''}`);
        }
      }
    }
    expect(citations).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });

  it('no file points at the workplace copy outside the repository', () => {
    const outside = [
      ...sourceFiles('src'),
      ...sourceFiles('test'),
      ...sourceFiles('docs'),
      'README.md',
    ].filter((file) => text(file).includes(['..', 'shared', 'reference'].join('/')));
    expect(outside).toEqual([]);
  });
});

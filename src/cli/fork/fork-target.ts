/**
 * The two targets of `sandbox up --fork`: the one read (loaded and validated as `plan --target` loads it, its
 * credentials' secrets resolved, nothing sent before both hold) and the one written for the copy — the original's
 * names (network, nodes, participant ids, node parties, instrument, named parties) with the copy's URLs, logins
 * and secret files, so that a playbook written for the original runs against the copy unchanged.
 */
import { resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { ValidationError } from '../../errors.js';
import { resolveSecrets } from '../../engine/secrets.js';
import type { Target } from '../../playbook/target.js';
import { terminalSafe } from '../../terminal-text.js';
import { loadTarget } from '../../validation/target-load.js';
import { stderr } from '../stdio.js';

export interface ForkSource {
  target: Target;
  secrets: Record<string, string>;
}

export async function loadForkSource(file: string, env: NodeJS.ProcessEnv): Promise<ForkSource> {
  const target = loadTarget(file, {
    warn: (w) =>
      stderr.write(
        terminalSafe(
          `warning: ${w.file}:${w.line}:${w.col}: ${w.message}${w.hint ? `\n  hint: ${w.hint}` : ''}\n`,
        ),
      ),
  });
  const names = new Set<string>();
  const blocks = [
    target.auth,
    ...Object.values(target.nodes ?? {}).map((n) => n.auth),
    ...Object.values(target.parties ?? {}).map((p) => (typeof p === 'string' ? undefined : p.auth)),
  ];
  for (const auth of blocks)
    for (const ref of [auth?.password, auth?.clientSecret]) if (ref) names.add(ref.secret);
  const found = await resolveSecrets(names, {
    env,
    declared: target.secrets,
    baseDir: target.file ? resolve(target.file, '..') : process.cwd(),
  });
  if (found.missing.length > 0) {
    throw new ValidationError(
      'LB_INPUT_INVALID',
      found.missing.map((m) => ({
        file: target.file ?? file,
        ...(target.secretUses?.[m.name] ?? { line: 1, col: 1 }),
        pointer: '',
        rule: 'missing-secret',
        message: `secret '${m.name}' of the target's credentials is not set`,
        expected: `a value from ${m.tried.join(', or ')}`,
        hint: `export ${m.name}=… before forking: the fork reads the network with the target's own credentials`,
      })),
    );
  }
  return { target, secrets: found.values };
}

type Yaml = Record<string, unknown>;

/**
 * The copy's target: `copyYaml` (the sandbox's own target of the copy: URLs, logins, secret files) under the
 * original's names. Named parties keep their node but lose their own logins (the copy's node login acts as them).
 */
export function copyTargetYaml(original: Target, copyYaml: string, stateDir: string): string {
  const copy = parse(copyYaml) as Yaml;
  const copyNodes = (copy['nodes'] ?? {}) as Record<string, Yaml>;
  const parties = Object.fromEntries(
    Object.entries(original.parties ?? {}).map(([name, p]) => [
      name,
      typeof p === 'string' ? p : { party: p.party, node: p.node },
    ]),
  );
  const nodes = Object.fromEntries(
    Object.entries(original.nodes ?? {}).map(([name, n]) => {
      const own = copyNodes[name] ?? {};
      return [
        name,
        {
          participantId: n.participantId,
          dpm: own['dpm'],
          ledger: own['ledger'],
          ...(n.party ? { party: n.party } : {}),
          ...(own['auth'] ? { auth: own['auth'] } : {}),
        },
      ];
    }),
  );
  const target = {
    ...copy,
    name: `${original.name}-fork`,
    network: original.network,
    nodes,
    ...(original.instrument ? { instrument: { ...original.instrument } } : {}),
    parties,
  };
  return [
    '# yaml-language-server: $schema=https://ledgerbook.dev/schemas/target.schema.json',
    `# a copy of target ${original.name}, forked by ledgerbook sandbox up --fork (state dir ${stateDir})`,
    stringify(target),
  ].join('\n');
}

// Generated playbooks for the validate benchmarks (validate-*.bench.mjs), each valid or with one error near
// the end, so that a run with an error and a valid run read the same text but for a few characters, and the
// runner that measures the CLI on them.
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { CLI, median } from './cli.mjs';

/**
 * The plain shape: block style, alternating core.log and core.shell, one expression in every log step.
 * `error`: the core.log step three from the end misspells `message` (an unknown key: a schema finding).
 */
export function plainPlaybook(steps, { error = false } = {}) {
  const parts = [`name: big\ninputs:\n  n: { type: integer, default: 3 }\nsteps:\n`];
  const wrong = error ? lastIndexOfKind(steps, 2, 0, 3) : -1;
  for (let i = 0; i < steps; i++) {
    const key = i === wrong ? 'mesage' : 'message';
    parts.push(
      i % 2 === 0
        ? `  - id: s${i}\n    uses: core.log\n    with:\n      ${key}: "step ${i} of \${{ inputs.n }}"\n`
        : `  - id: s${i}\n    uses: core.shell\n    with:\n      run: "echo ${i}"\n      creates: "out/${i}"\n`,
    );
  }
  return parts.join('');
}

/** A package id as the DPM gives them: 64 hex digits. */
const PACKAGE = 'ab'.repeat(32);

/**
 * The richer shape: six kinds (core.log, core.shell, core.wait, core.assert, dpm.vetted-parity,
 * dpm.change-threshold, the last two checked against a target), `${{ }}` references in most fields (inputs,
 * vars, earlier steps' outputs, `item` in for_each steps, conditions in `if:`), flow and block style mixed.
 * `error`: the core.assert step near the end refers to an output its kind does not declare (a rule finding,
 * pointed at inside the string).
 */
export function richPlaybook(steps, { error = false } = {}) {
  const parts = [
    [
      'name: rich',
      'inputs:',
      '  env: { default: dev }',
      '  threshold: { type: integer, default: 2 }',
      '  nodes: { type: array, default: [node1, node2, node3] }',
      '  party: { default: "alpha::1220' + 'cd'.repeat(32) + '" }',
      '  verbose: { type: boolean, default: false }',
      'vars:',
      '  region: "eu-${{ inputs.env }}"',
      '  label: "${{ vars.region }}/${{ inputs.env }}"',
      "  wait: \"${{ inputs.verbose && '5m' || '2m' }}\"",
      'steps:',
      '',
    ].join('\n'),
  ];
  const wrong = error ? lastIndexOfKind(steps, 6, 3, 4) : -1;
  // the latest step of each kind so far, whose outputs later steps read
  let shell = -1;
  let parity = -1;
  let threshold = -1;
  for (let i = 0; i < steps; i++) {
    const id = `s${i}`;
    const fanOut = i % 4 === 0;
    const each = fanOut ? '    for_each: ${{ inputs.nodes }}\n    key: ${{ item }}\n' : '';
    const node = fanOut ? '${{ item }}' : '${{ inputs.nodes[0] }}';
    switch (i % 6) {
      case 0:
        parts.push(
          `  - id: ${id}\n    name: log ${i} for \${{ inputs.env }}\n    uses: core.log\n${each}` +
            `    if: \${{ inputs.verbose || inputs.env != 'prod' }}\n    with:\n` +
            `      message: "step ${i} on ${node} in \${{ vars.region }} (\${{ vars.label }}), threshold \${{ inputs.threshold }}"\n` +
            `      level: ${i % 24 === 0 ? 'warn' : 'info'}\n`,
        );
        break;
      case 1:
        parts.push(
          `  - id: ${id}\n    name: shell ${i}\n    uses: core.shell\n${each}    with:\n` +
            `      run: "echo \${{ inputs.env }} ${i} ${node} >> out/\${{ vars.region }}.log"\n` +
            `      creates: "out/${i}-\${{ inputs.env }}-${node}"\n` +
            `      unless: "test -f out/\${{ vars.label }}.${i}"\n` +
            `      env: { STEP: "${i}", REGION: "\${{ vars.region }}", NODE: "${node}"${shell >= 0 ? `, BEFORE: "\${{ steps.s${shell}.outputs.stdout }}", CODE: "\${{ steps.s${shell}.outputs.exit_code }}"` : ''} }\n` +
            '    retry: { attempts: 3, delay: 1s, max_delay: 10s }\n    timeout: 2m\n',
        );
        shell = i;
        break;
      case 2:
        parts.push(
          `  - id: ${id}\n    uses: core.wait\n    if: \${{ steps.s${shell}.outputs.exit_code != 0 }}\n    with:\n` +
            `      until: \${{ steps.s${shell}.outputs.exit_code == 0 && attempt < 5 && contains(steps.s${shell}.outputs.stdout, inputs.env) }}\n` +
            '      interval: 500ms\n      timeout: ${{ vars.wait }}\n' +
            '    timeout: 5m\n',
        );
        break;
      case 3: {
        const output = i === wrong ? 'exit_status' : 'exit_code';
        parts.push(
          `  - id: ${id}\n    uses: core.assert\n` +
            `    if: \${{ inputs.env != 'prod' && !inputs.verbose }}\n` +
            '    with:\n' +
            `      that: "\${{ steps.s${shell}.outputs.${output} == 0 && length(inputs.nodes) >= inputs.threshold }}"\n` +
            `      message: "step ${i} in \${{ vars.region }}: \${{ steps.s${shell}.outputs.stderr }} (\${{ steps.s${shell}.outputs.exit_code }})"\n`,
        );
        break;
      }
      case 4:
        parts.push(
          `  - id: ${id}\n    uses: dpm.vetted-parity\n    with:\n` +
            '      nodes: ["${{ inputs.nodes[0] }}", "${{ inputs.nodes[1] }}", "${{ inputs.nodes[2] }}"]\n' +
            (parity >= 0
              ? `      packages: \${{ steps.s${parity}.outputs.packages }}\n`
              : `      packages:\n        - package_id: ${PACKAGE}\n          name: wrapped\n          version: 1.2.1\n`) +
            '      show_uploaded: ${{ inputs.verbose }}\n',
        );
        parity = i;
        break;
      default:
        parts.push(
          `  - id: ${id}\n    uses: dpm.change-threshold\n    if: \${{ inputs.threshold > 1 }}\n    with:\n` +
            '      coordinator: node1\n' +
            `      party: ${threshold >= 0 ? `\${{ steps.s${threshold}.outputs.party_id }}` : '${{ inputs.party }}'}\n` +
            '      threshold: ${{ inputs.threshold }}\n' +
            '      timeout: ${{ vars.wait }}\n',
        );
        threshold = i;
    }
  }
  return parts.join('');
}

/** The index of the `nth` step from the end whose index is `remainder` modulo `period`. */
function lastIndexOfKind(steps, period, remainder, nth) {
  let found = 0;
  for (let i = steps - 1; i >= 0; i--) if (i % period === remainder && ++found === nth) return i;
  throw new Error(`fewer than ${nth} steps of kind ${remainder}`);
}

/** Loaded into the measured process (`--import`): prints its peak resident set size last, on stderr. */
const PEAK_RSS_HOOK = `data:text/javascript,${encodeURIComponent(
  "process.on('exit', () => process.stderr.write('\\npeak-rss-kb ' + process.resourceUsage().maxRSS + '\\n'));",
)}`;

/**
 * Run the CLI once with `args`: wall time (node start included) and the process's peak RSS. Throws unless it
 * exits with `status` (65: the playbook has findings).
 */
export function measureCli(args, { status = 0 } = {}) {
  const started = performance.now();
  const result = spawnSync(process.execPath, ['--import', PEAK_RSS_HOOK, CLI, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, CI: 'true' },
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - started;
  const stderr = result.stderr.toString();
  if (result.status !== status)
    throw new Error(
      `${args.join(' ')} exited ${result.status} (expected ${status}): ${stderr.slice(0, 2000)}`,
    );
  const peak = /peak-rss-kb (\d+)\s*$/.exec(stderr);
  if (!peak) throw new Error(`no peak RSS reported: ${stderr.slice(-500)}`);
  return { ms, rssMb: Number(peak[1]) / 1024, stderr };
}

/**
 * `runs` pairs of (valid, with an error) CLI runs, alternated so that a drift in the machine's speed affects both
 * alike: medians of each, and the median of the per-pair ratios error/valid.
 */
export function pairedRuns(validArgs, errorArgs, runs) {
  const valid = [];
  const error = [];
  const ratios = [];
  for (let i = 0; i < runs; i++) {
    const a = measureCli(validArgs);
    const b = measureCli(errorArgs, { status: 65 });
    valid.push(a);
    error.push(b);
    ratios.push(b.ms / a.ms);
  }
  return {
    valid: { ms: median(valid.map((r) => r.ms)), rssMb: median(valid.map((r) => r.rssMb)) },
    error: { ms: median(error.map((r) => r.ms)), rssMb: median(error.map((r) => r.rssMb)) },
    ratio: median(ratios),
    findings: error[0].stderr.split('\n').filter((line) => / error: /.test(line)),
  };
}

/**
 * The sandbox profiles the party, package and governance e2e files run their scenarios under: the fast one, and
 * the realistic one time-scaled (every duration of `--profile realistic` × 0.1: the same order of events, a tenth
 * of the wait). And how long a test waits on the sandbox under each.
 */
import type { SandboxOptions } from '@ledgerbook/sandbox';

export const PROFILES: Array<[name: string, options: Partial<SandboxOptions>]> = [
  ['fast', {}],
  ['realistic ×0.1', { profile: 'realistic', timeScale: 0.1 }],
];

/**
 * How long a test waits for a workflow run or a governance decision of the sandbox: 5 s under the fast profile;
 * under the realistic one two minutes of its time (an onboarding takes about 30 s there), scaled like its
 * durations.
 */
export function patienceMs(options: Partial<SandboxOptions>): number {
  return options.profile === 'realistic' ? 120_000 * (options.timeScale ?? 1) : 5_000;
}

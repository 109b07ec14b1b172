import { execFileSync } from 'node:child_process';

/** End-to-end tests run the built CLI (dist/), so build it once before any test file runs. */
export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}

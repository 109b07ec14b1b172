import { createRequire } from 'node:module';

/** The package version, written into the build by scripts/build.mjs; undeclared when running from source. */
declare const LEDGERBOOK_VERSION: string | undefined;

/** The package version: the build's constant, or read once from package.json when running from source. */
export const VERSION: string =
  typeof LEDGERBOOK_VERSION === 'string'
    ? LEDGERBOOK_VERSION
    : (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

/**
 * The secrets the built-in sandbox supplies itself (the target it writes names their files): nothing for the user
 * to set. A module of its own so that `validate` knows them without loading the sandbox's starter
 * (embedded-sandbox.ts).
 */
export const BUILTIN_SANDBOX_SECRETS: ReadonlySet<string> = new Set([
  'SANDBOX_OPERATOR_PASSWORD',
  'SANDBOX_CI_CLIENT_SECRET',
]);

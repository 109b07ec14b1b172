/**
 * Loads oidc-provider once. On Node 20, importing it prints an "Unsupported runtime" warning (the library asks
 * for Node 22, yet runs on Node 20, which ledgerbook supports); the sandbox must not print it on every start,
 * so that one line is held back while the module loads. Every other console line passes through.
 */
import type * as OidcProvider from 'oidc-provider';

const RUNTIME_WARNING = 'oidc-provider WARNING: Unsupported runtime.';

let loading: Promise<typeof OidcProvider> | undefined;

export function loadOidcProvider(): Promise<typeof OidcProvider> {
  loading ??= importQuietly();
  return loading;
}

async function importQuietly(): Promise<typeof OidcProvider> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].includes(RUNTIME_WARNING)) return;
    warn(...args);
  };
  try {
    return await import('oidc-provider');
  } finally {
    console.warn = warn;
  }
}

/**
 * Credentials never travel inside URLs. A URL's userinfo (`https://user:password@host/…`) is sent by some
 * clients, dropped by others, and printed by every message, log and event that names the URL; so ledgerbook
 * refuses it wherever it accepts a URL (targets, `core.wait`), and hides it wherever it prints one. The one
 * exception is the PostgreSQL state's connection string, which libpq defines with a user and a password: it is
 * printed with its user and `***` for its password.
 */

/**
 * `scheme://` then the authority up to its last `@` (as WHATWG URL parsers read `a@b@host`: the userinfo is
 * `a@b`), never across a path, query, fragment, blank or a character that cannot stand raw in a URL (quotes, <>,
 * backtick, backslash), so that a URL inside JSON text or a sentence is read no further than itself.
 */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#"'<>`\\]*)@/gi;

const POSTGRES_SCHEME = /^postgres(ql)?:\/\/$/i;

/** What a URL's userinfo is shown as: nothing of it, but that something was there. */
export const HIDDEN_USERINFO = '***';

/**
 * `text` with the userinfo of every URL in it hidden: `https://***@host/…`; a PostgreSQL connection string keeps
 * its user, `postgres://user:***@host/…` (a password already shown as `***` stays so).
 */
export function hideUrlCredentials(text: string): string {
  if (!text.includes('@')) return text;
  return text.replace(USERINFO, (whole: string, scheme: string, userinfo: string) => {
    if (userinfo === '') return whole;
    if (POSTGRES_SCHEME.test(scheme)) {
      const colon = userinfo.indexOf(':');
      if (colon < 0) return whole;
      return `${scheme}${userinfo.slice(0, colon)}:${HIDDEN_USERINFO}@`;
    }
    return userinfo === HIDDEN_USERINFO ? whole : `${scheme}${HIDDEN_USERINFO}@`;
  });
}

/**
 * Whether `value`, a URL as written (a target's, a playbook's, perhaps with `${{ … }}` in it), carries a user name
 * or password: an `@` between `://` and the path, query or fragment.
 */
export function hasUrlCredentials(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(value.trim());
}

/**
 * The environment variables ledgerbook reads for itself. core.shell keeps them out of a command's environment
 * (a playbook's command never sees the state's credentials or the plan-signing key), so they are named here, below
 * every layer that needs them.
 */

/** The state (a directory or a PostgreSQL URL) when `--state` is not given. */
export const STATE_ENV = 'LEDGERBOOK_STATE';

/** The key that signs saved plans (`plan --out`) and verifies them (`run plan.json`). */
export const PLAN_KEY_ENV = 'LEDGERBOOK_PLAN_KEY';

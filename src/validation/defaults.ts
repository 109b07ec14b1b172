/** Defaults the schema's descriptions promise (playbook-schema.ts `retrySchema`). */
export const RETRY_DEFAULTS = {
  attempts: 3,
  delay: '1s',
  factor: 2,
  max_delay: '30s',
  jitter: true,
} as const;

/**
 * What the declarations of the token kinds that mint or burn read of the minter: its credentials' schema.
 */

export const credentialCidsSchema = {
  type: 'array',
  items: { type: 'string', minLength: 1 },
  description:
    'Minter credential contract ids to present (default: every Minter credential the party holds), e.g. `${{ steps.credentials.outputs.credential_cids }}`.',
} as const;
